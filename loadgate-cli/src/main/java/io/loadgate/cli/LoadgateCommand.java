package io.loadgate.cli;

import picocli.CommandLine.Command;

@Command(name = "loadgate", mixinStandardHelpOptions = true, version = "loadgate 0.1.0",
        description = "Loads tables and files into a data lake exactly once.",
        subcommands = {DemoCommand.class, SetupCommand.class, RunCommand.class, ReplayCommand.class,
                RollbackCommand.class, WorkerCommand.class, ServerCommand.class,
                ControlLoopCommand.class, RunsCommand.class, MonitorCommand.class, CleanupCommand.class,
                ResolveCommand.class, CancelCommand.class, DispatchCommand.class,
                TokenCommand.class,
                KeysCommand.class,
                CheckCommand.class,
                TableCommand.class})
final class LoadgateCommand implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
