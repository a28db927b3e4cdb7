package io.loadgate.server.http;

import io.javalin.http.Context;
import io.loadgate.api.ChunkKind;
import io.loadgate.api.PartitionApi;
import io.loadgate.api.PartitionId;
import io.loadgate.api.RunId;
import io.loadgate.ledger.Ledger;
import io.loadgate.ledger.partition.Partitions;
import java.util.UUID;

/** {@code /v1/runs/{runId}/partitions/{partitionId}/...}: claim, chunks, fail, heartbeat. */
final class PartitionRoutes {
    private static final String BASE = "/v1/runs/{runId}/partitions/{partitionId}";

    private PartitionRoutes() {
    }

    static void register(ApiServer.Routes routes, Ledger ledger) {
        routes.post(BASE + "/claim", ApiServer.WORKER, ctx -> claim(ctx, ledger));
        routes.post(BASE + "/chunks", ApiServer.WORKER, ctx -> chunk(ctx, ledger));
        routes.post(BASE + "/fail", ApiServer.WORKER, ctx -> fail(ctx, ledger));
        routes.post(BASE + "/heartbeat", ApiServer.WORKER, ctx -> heartbeat(ctx, ledger));
    }

    private static PartitionId partitionId(Context ctx, RunId runId) {
        String id = ctx.pathParam("partitionId");
        if (!Formats.PARTITION_ID.matcher(id).matches()) {
            throw Partitions.partitionNotFound(runId, id);
        }
        return PartitionId.of(id);
    }

    private static void claim(Context ctx, Ledger ledger) {
        RunId runId = ApiServer.runId(ctx);
        PartitionId partitionId = partitionId(ctx, runId);
        RequestBody body = RequestBody.parse(ctx.body());
        UUID token = body.uuid("claimToken", true);
        String node = body.string("workerNode", false, 200);
        body.finish();
        var result = ledger.partitions().claim(runId, partitionId, new PartitionApi.Claim(token, node));
        // Extension: how often the ledger expects the owner's heartbeat (recovery.heartbeat_interval).
        ApiServer.ok(ctx, new PartitionApi.ClaimResult(result.claimed(), result.runStatus(), result.partitionStatus(),
                result.attempt(), ledger.settings().heartbeatInterval().toMillis()));
    }

    private static void chunk(Context ctx, Ledger ledger) {
        RunId runId = ApiServer.runId(ctx);
        PartitionId partitionId = partitionId(ctx, runId);
        RequestBody body = RequestBody.parse(ctx.body());
        UUID token = body.uuid("claimToken", true);
        Integer index = body.int32("chunkIndex", true, Integer.MIN_VALUE, Integer.MAX_VALUE);
        Integer count = body.int32("chunkCount", true, 1, 1_000_000);
        String fragment = body.string("fragmentIdentifier", false, 200);
        String path = body.string("hdfsPath", true, Formats.PATH);
        Long records = body.integer("recordCount", true, 0, Long.MAX_VALUE);
        Long bytes = body.integer("byteCount", true, 0, Long.MAX_VALUE);
        String checksum = body.string("checksum", false, 200);
        ChunkKind kind = body.enumValue("kind", false, ChunkKind.class);
        // Extension: a mapper's counts for the partition (docs/ledger-api-v1.md); a NiFi flow sends none.
        Long linesRead = body.integer("linesRead", false, 0, Long.MAX_VALUE);
        Long linesSkipped = body.integer("linesSkipped", false, 0, Long.MAX_VALUE);
        Long rowsEmitted = body.integer("rowsEmitted", false, 0, Long.MAX_VALUE);
        // Extension: the reporter's node runs the run's validation itself if this report completes the extraction.
        String handOffTo = body.string("handOffTo", false, 200);
        if (!body.hasErrors()) {
            String problem = PartitionApi.ChunkReport.mappedCountsProblem(linesRead, linesSkipped, rowsEmitted);
            body.check(linesRead == null ? "linesRead" : linesSkipped == null ? "linesSkipped" : "rowsEmitted",
                    problem == null, problem);
        }
        body.finish();
        var result = ledger.partitions().reportChunk(runId, partitionId,
                // A report without a kind (as the seed API's clients send) is a DATA chunk.
                new PartitionApi.ChunkReport(token, index, count, fragment, path, records, bytes, checksum,
                        kind == null ? ChunkKind.DATA : kind, linesRead, linesSkipped, rowsEmitted, handOffTo),
                // The client's X-Request-Id, the same on each attempt: a resend gets the hand-off its lost answer held.
                ctx.attribute("requestId"));
        ApiServer.ok(ctx, result);
    }

    private static void fail(Context ctx, Ledger ledger) {
        RunId runId = ApiServer.runId(ctx);
        PartitionId partitionId = partitionId(ctx, runId);
        RequestBody body = RequestBody.parse(ctx.body());
        UUID token = body.uuid("claimToken", true);
        String stage = body.string("errorStage", false, Formats.CODE);
        String errorClass = body.string("errorClass", false, Formats.CODE);
        String code = body.string("errorCode", false, Formats.CODE);
        String message = body.string("message", false, Formats.MESSAGE);
        Integer attempt = body.int32("attempt", false, 0, 1_000_000);
        body.finish();
        var result = ledger.partitions().fail(runId, partitionId,
                new PartitionApi.PartitionFailure(token, stage, errorClass, code, message, attempt));
        ApiServer.ok(ctx, result);
    }

    private static void heartbeat(Context ctx, Ledger ledger) {
        RunId runId = ApiServer.runId(ctx);
        PartitionId partitionId = partitionId(ctx, runId);
        RequestBody body = RequestBody.parse(ctx.body());
        UUID token = body.uuid("claimToken", true);
        Long rowsRead = body.integer("rowsRead", false, 0, Long.MAX_VALUE);
        body.finish();
        var result = ledger.partitions().heartbeat(runId, partitionId,
                new PartitionApi.PartitionHeartbeat(token, rowsRead));
        ApiServer.ok(ctx, result);
    }
}
