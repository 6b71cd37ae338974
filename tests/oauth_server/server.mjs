// A real OAuth 2.1 authorization server for the tests: panva's oidc-provider (certified).
// Started by tests/mcp/oauth_server.py on 127.0.0.1 with a port of its own choosing; prints
// one line of JSON ({"issuer": ...}) once it listens, and stops when its stdin closes.
//
// OAUTH_TEST_CONFIG (JSON) gives the signing keys (a private JWKS), the clients
// (client_credentials; a client whose id ends in "-opaque" gets opaque tokens, for
// introspection), the scopes resource servers understand, and the ones each client is
// granted: a client may ask for any, and gets those granted (as MCP clients ask for every
// scope of the server's metadata). Any resource indicator on
// 127.0.0.1 is a resource server: tokens for it carry it as their audience (RFC 8707).
// Revocation (RFC 7009) is on; GET /test/introspections says how many introspection
// requests (RFC 7662) it has answered, so tests can count what a resource server asks.
import http from 'node:http';
import Provider from 'oidc-provider';

const config = JSON.parse(process.env.OAUTH_TEST_CONFIG);
const server = http.createServer();

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  const issuer = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    jwks: config.jwks,
    clients: config.clients,
    scopes: ['openid', 'offline_access', ...config.scopes],
    clientDefaults: { grant_types: ['client_credentials'], response_types: [], redirect_uris: [] },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true, allowedPolicy: async () => true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => undefined,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (ctx, resourceIndicator, client) => {
          const url = new URL(resourceIndicator);
          if (url.hostname !== '127.0.0.1') {
            throw new Provider.errors.InvalidTarget();
          }
          return {
            scope: config.grants[client.clientId] || '',
            audience: resourceIndicator,
            accessTokenTTL: 300,
            accessTokenFormat: client.clientId.endsWith('-opaque') ? 'opaque' : 'jwt',
          };
        },
      },
    },
  });
  provider.on('server_error', (ctx, err) => console.error('server_error', err));
  let introspections = 0;
  provider.use(async (ctx, next) => {
    if (ctx.method === 'POST' && ctx.path === '/token/introspection') {
      introspections += 1;
    }
    await next();
  });
  const answer = provider.callback();
  server.on('request', (req, res) => {
    if (req.method === 'GET' && req.url === '/test/introspections') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ introspections }));
      return;
    }
    answer(req, res);
  });
  console.log(JSON.stringify({ issuer }));
});

process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
