// The identity tests' authorization server: oidc-provider on loopback, issuing JWT access
// tokens (RFC 9068) for resource indicators (RFC 8707) through the client credentials
// grant, signed RS256 with a key made at start-up.
//
//   node authorization_server.mjs PORT RESOURCE [OTHER_RESOURCE]
//
// Prints "ready" once it listens. Clients: reporting-client / reporting-secret and
// other-client / other-secret, both allowed scope `tools:call`.

import { createServer } from 'node:http';
import { generateKeyPairSync } from 'node:crypto';
import Provider, { errors } from 'oidc-provider';

const [port, resource, other] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}`;
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const signing = { ...privateKey.export({ format: 'jwk' }), kid: 'rs-1', use: 'sig', alg: 'RS256' };
const resources = new Set([resource, other].filter(Boolean));

const client = (id, secret) => ({
  client_id: id,
  client_secret: secret,
  grant_types: ['client_credentials'],
  redirect_uris: [],
  response_types: [],
  scope: 'tools:call',
});

const provider = new Provider(issuer, {
  clients: [client('reporting-client', 'reporting-secret'), client('other-client', 'other-secret')],
  jwks: { keys: [signing] },
  scopes: ['tools:call'],
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => resource,
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, indicator) => {
        if (!resources.has(indicator)) throw new errors.InvalidTarget();
        return {
          scope: 'tools:call',
          audience: indicator,
          accessTokenTTL: 600,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        };
      },
    },
  },
});

createServer(provider.callback()).listen(Number(port), '127.0.0.1', () => {
  console.log('ready');
});
