// The identity tests' authorization server: oidc-provider on loopback, issuing JWT access
// tokens (RFC 9068) for resource indicators (RFC 8707) through the client credentials
// grant, signed RS256 with a key made at start-up — and opaque access tokens for one
// client, which the resource server checks through token introspection (RFC 7662).
//
//   node authorization_server.mjs PORT RESOURCE [OTHER_RESOURCE]
//
// Prints "ready" once it listens. Clients (id / secret):
//   reporting-client / reporting-secret, other-client / other-secret: scope `tools:call`;
//   opaque-client / opaque-secret: scope `tools:call`, opaque tokens;
//   ops-client / ops-secret: scope `toolgate:admin`;
//   toolgate / toolgate-secret: the resource server, the only client allowed to
//   introspect.

import { createServer } from 'node:http';
import { generateKeyPairSync } from 'node:crypto';
import Provider, { errors } from 'oidc-provider';

const [port, resource, other] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}`;
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const signing = { ...privateKey.export({ format: 'jwk' }), kid: 'rs-1', use: 'sig', alg: 'RS256' };
const resources = new Set([resource, other].filter(Boolean));

const client = (id, secret, scope = 'tools:call') => ({
  client_id: id,
  client_secret: secret,
  grant_types: ['client_credentials'],
  redirect_uris: [],
  response_types: [],
  scope,
});

const provider = new Provider(issuer, {
  clients: [
    client('reporting-client', 'reporting-secret'),
    client('other-client', 'other-secret'),
    client('opaque-client', 'opaque-secret'),
    client('ops-client', 'ops-secret', 'toolgate:admin'),
    client('toolgate', 'toolgate-secret'),
  ],
  jwks: { keys: [signing] },
  scopes: ['tools:call', 'toolgate:admin'],
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: {
      enabled: true,
      // Only the resource server learns what a token grants.
      allowedPolicy: (ctx, caller) => caller.clientId === 'toolgate',
    },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => resource,
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, indicator, client) => {
        if (!resources.has(indicator)) throw new errors.InvalidTarget();
        const scope = 'tools:call toolgate:admin';
        if (client.clientId === 'opaque-client') {
          return { scope, audience: indicator, accessTokenTTL: 600, accessTokenFormat: 'opaque' };
        }
        return {
          scope,
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
