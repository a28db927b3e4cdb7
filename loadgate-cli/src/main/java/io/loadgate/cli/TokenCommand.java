package io.loadgate.cli;

import io.loadgate.server.auth.Tokens;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(name = "token", mixinStandardHelpOptions = true, description = "Makes API tokens and their digests.",
        subcommands = {TokenCommand.New.class, TokenCommand.Digest.class})
final class TokenCommand implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    @Command(name = "new", mixinStandardHelpOptions = true,
            description = "Prints a new random token and, below it, the digest to put in auth.token_digests.")
    static final class New implements Runnable {
        @Override
        public void run() {
            String token = Tokens.generate();
            System.out.println("token:  " + token);
            System.out.println("digest: " + Tokens.digest(token));
        }
    }

    @Command(name = "digest", mixinStandardHelpOptions = true, description = "Prints the SHA-256 digest of a token.")
    static final class Digest implements Runnable {
        @Parameters(paramLabel = "TOKEN")
        String token;

        @Override
        public void run() {
            System.out.println(Tokens.digest(token));
        }
    }
}
