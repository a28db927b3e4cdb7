package io.loadgate.server.http;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.loadgate.server.auth.Authenticator;
import io.loadgate.server.auth.Role;
import io.loadgate.server.lakehouse.Lakehouse;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.rest.CatalogHandlers;
import org.apache.iceberg.rest.Endpoint;
import org.apache.iceberg.rest.RESTCatalogProperties;
import org.apache.iceberg.rest.RESTSerializers;
import org.apache.iceberg.rest.RESTUtil;
import org.apache.iceberg.rest.requests.CreateNamespaceRequest;
import org.apache.iceberg.rest.requests.CreateTableRequest;
import org.apache.iceberg.rest.requests.UpdateTableRequest;
import org.apache.iceberg.rest.responses.ConfigResponse;
import org.apache.iceberg.rest.responses.ErrorResponse;
import org.apache.iceberg.rest.responses.OAuthTokenResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Iceberg REST catalog protocol (the Iceberg REST OpenAPI spec) over the ledger's {@link Lakehouse}, at
 * {@value #PATH}: an engine's catalog URI is {@code http://ledger:8080/iceberg}. The work is iceberg-core's own
 * {@link CatalogHandlers}; this maps routes, tokens and errors. Errors are Iceberg's {@link ErrorResponse}, the shape
 * REST catalog clients parse, not the ledger's envelope.
 *
 * <p>The ledger's bearer tokens: any role may read; only a worker may create or commit, since a commit from outside
 * changes a table Loadgate loads. The OAuth2 client-credentials exchange ({@code credential=client:TOKEN}, as
 * Trino and older clients want) answers with the presented token itself once it is valid.
 */
final class IcebergRestRoutes {
    static final String PATH = "/iceberg";
    private static final Logger LOG = LoggerFactory.getLogger(IcebergRestRoutes.class);
    private static final Set<Role> READERS = ApiServer.READERS;
    private static final Set<Role> COMMITTERS = ApiServer.WORKER;
    private static final String NS = PATH + "/v1/namespaces/{namespace}";
    private static final String TABLE = NS + "/tables/{table}";
    /** What this server implements; a client calls nothing else (no views, drops, renames or metrics). */
    private static final List<Endpoint> ENDPOINTS = List.of(Endpoint.V1_LIST_NAMESPACES, Endpoint.V1_LOAD_NAMESPACE,
            Endpoint.V1_NAMESPACE_EXISTS, Endpoint.V1_CREATE_NAMESPACE, Endpoint.V1_LIST_TABLES,
            Endpoint.V1_LOAD_TABLE, Endpoint.V1_TABLE_EXISTS, Endpoint.V1_CREATE_TABLE, Endpoint.V1_UPDATE_TABLE);
    /** iceberg-core's REST mapper settings (RESTObjectMapper, not public), with its serialisers. */
    private static final ObjectMapper MAPPER = mapper();

    private final Lakehouse lakehouse;
    private final Authenticator authenticator;

    private IcebergRestRoutes(Lakehouse lakehouse, Authenticator authenticator) {
        this.lakehouse = lakehouse;
        this.authenticator = authenticator;
    }

    static void register(RoutesConfig routes, Lakehouse lakehouse, Authenticator authenticator) {
        IcebergRestRoutes r = new IcebergRestRoutes(lakehouse, authenticator);
        routes.get(PATH + "/v1/config", ctx -> r.answer(ctx, READERS, () -> ConfigResponse.builder()
                .withEndpoints(ENDPOINTS).build()));
        routes.post(PATH + "/v1/oauth/tokens", r::token);
        routes.get(PATH + "/v1/namespaces", ctx -> r.answer(ctx, READERS, () -> CatalogHandlers.listNamespaces(
                r.catalog(), parent(ctx))));
        routes.post(PATH + "/v1/namespaces", ctx -> r.answer(ctx, COMMITTERS, () -> CatalogHandlers.createNamespace(
                r.catalog(), read(ctx, CreateNamespaceRequest.class))));
        routes.get(NS, ctx -> r.answer(ctx, READERS, () -> CatalogHandlers.loadNamespace(r.catalog(),
                namespace(ctx))));
        routes.head(NS, ctx -> r.answerEmpty(ctx, READERS, () -> CatalogHandlers.namespaceExists(r.catalog(),
                namespace(ctx))));
        routes.get(NS + "/tables", ctx -> r.answer(ctx, READERS, () -> CatalogHandlers.listTables(r.catalog(),
                namespace(ctx))));
        routes.post(NS + "/tables", ctx -> r.answer(ctx, COMMITTERS, () -> CatalogHandlers.createTable(r.catalog(),
                namespace(ctx), read(ctx, CreateTableRequest.class))));
        routes.get(TABLE, ctx -> r.answer(ctx, READERS, () -> CatalogHandlers.loadTable(r.catalog(), table(ctx),
                RESTCatalogProperties.SnapshotMode.ALL)));
        routes.head(TABLE, ctx -> r.answerEmpty(ctx, READERS, () -> CatalogHandlers.tableExists(r.catalog(),
                table(ctx))));
        routes.post(TABLE, ctx -> r.answer(ctx, COMMITTERS, () -> CatalogHandlers.updateTable(r.catalog(),
                table(ctx), read(ctx, UpdateTableRequest.class))));
    }

    private org.apache.iceberg.jdbc.JdbcCatalog catalog() {
        return lakehouse.catalog();
    }

    private interface Call {
        Object run() throws Exception;
    }

    private interface EmptyCall {
        void run() throws Exception;
    }

    private void answer(Context ctx, Set<Role> roles, Call call) {
        try {
            authorise(ctx, roles);
            ApiServer.write(ctx, 200, MAPPER.valueToTree(call.run()));
        } catch (Exception e) {
            fail(ctx, e);
        }
    }

    private void answerEmpty(Context ctx, Set<Role> roles, EmptyCall call) {
        try {
            authorise(ctx, roles);
            call.run();
            ctx.status(204);
        } catch (Exception e) {
            fail(ctx, e);
        }
    }

    private void authorise(Context ctx, Set<Role> roles) {
        Authenticator.Principal principal = authenticator.authenticate(ctx.header("Authorization"))
                .orElseThrow(() -> new Refusal(401, "NotAuthorizedException", "a valid bearer token is required"));
        if (!roles.contains(principal.role())) {
            throw new Refusal(403, "ForbiddenException", "role " + principal.role().name().toLowerCase()
                    + " may not call " + ctx.method() + " " + ctx.endpoint().path + "; only a worker may change a table");
        }
        ctx.attribute("principal", principal);
    }

    /** OAuth2 client credentials (RFC 6749 4.4): the client secret is a ledger token, and becomes the access token. */
    private void token(Context ctx) {
        String grant = ctx.formParam("grant_type");
        if (!"client_credentials".equals(grant)) {
            oauthError(ctx, 400, "unsupported_grant_type", "only client_credentials is supported");
            return;
        }
        String secret = ctx.formParam("client_secret");
        if (secret == null || authenticator.authenticate("Bearer " + secret).isEmpty()) {
            oauthError(ctx, 401, "invalid_client", "the client secret is not a valid ledger token");
            return;
        }
        ApiServer.write(ctx, 200, MAPPER.valueToTree(OAuthTokenResponse.builder().withToken(secret)
                .withTokenType("bearer").withIssuedTokenType("urn:ietf:params:oauth:token-type:access_token")
                .build()));
    }

    private static void oauthError(Context ctx, int status, String error, String description) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", error);
        body.put("error_description", description);
        ApiServer.write(ctx, status, body);
    }

    private static void fail(Context ctx, Exception e) {
        int status;
        if (e instanceof Refusal refusal) {
            status = refusal.status;
        } else if (e instanceof NoSuchTableException || e instanceof NoSuchNamespaceException
                || e instanceof NotFoundException) {
            status = 404;
        } else if (e instanceof AlreadyExistsException || e instanceof CommitFailedException
                || e instanceof NamespaceNotEmptyException) {
            status = 409;
        } else if (e instanceof IllegalArgumentException || e instanceof ValidationException
                || e instanceof com.fasterxml.jackson.core.JacksonException) {
            status = 400;
        } else if (e instanceof UnsupportedOperationException) {
            status = 406;
        } else if (e instanceof CommitStateUnknownException) {
            // The spec's answer for a commit whose outcome the server does not know: the client must not retry it.
            status = 502;
        } else {
            status = 500;
        }
        if (status == 500) {
            LOG.error("Iceberg REST {} {} failed (requestId {})", ctx.method(), ctx.path(), ctx.attribute("requestId"),
                    e);
        }
        String type = e instanceof Refusal refusal ? refusal.type : e.getClass().getSimpleName();
        String message = status == 500 ? "internal error; see the server log for request id "
                + ctx.attribute("requestId") : e.getMessage();
        ApiServer.write(ctx, status, MAPPER.valueToTree(ErrorResponse.builder().responseCode(status).withType(type)
                .withMessage(message).build()));
    }

    private static <T> T read(Context ctx, Class<T> type) throws java.io.IOException {
        return MAPPER.readValue(ctx.body(), type);
    }

    /** The path's namespace: levels joined by the unit separator (0x1F), which Javalin has already decoded. */
    private static Namespace namespace(Context ctx) {
        return Namespace.of(ctx.pathParam("namespace").split("\u001f", -1));
    }

    private static TableIdentifier table(Context ctx) {
        return TableIdentifier.of(namespace(ctx), ctx.pathParam("table"));
    }

    private static Namespace parent(Context ctx) {
        String parent = ctx.queryParam("parent");
        return parent == null || parent.isEmpty() ? Namespace.empty() : RESTUtil.namespaceFromQueryParam(parent);
    }

    private static ObjectMapper mapper() {
        ObjectMapper mapper = new ObjectMapper();
        mapper.setVisibility(PropertyAccessor.FIELD, JsonAutoDetect.Visibility.ANY);
        mapper.configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
        mapper.setPropertyNamingStrategy(new PropertyNamingStrategies.KebabCaseStrategy());
        RESTSerializers.registerAll(mapper);
        return mapper;
    }

    /** A refusal of the catalog's own, answered in the Iceberg REST error format with one of the spec's types. */
    private static final class Refusal extends RuntimeException {
        private final int status;
        private final String type;

        Refusal(int status, String type, String message) {
            super(message);
            this.status = status;
            this.type = type;
        }
    }
}
