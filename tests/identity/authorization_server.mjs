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
//   introspect, and to exchange tokens.
//
// Token exchange (RFC 8693), registered as an extension grant: toolgate exchanges a
// caller's JWT access token for RESOURCE for a JWT access token for PROFILE_API, with
// the caller's `sub`, `act: {sub: "toolgate"}` and scope `profile:read`.

import { createServer } from 'node:http';
import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import Provider, { errors } from 'oidc-provider';

const [port, resource, other] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}`;
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const publicKey = createPublicKey(privateKey);
const signing = { ...privateKey.export({ format: 'jwk' }), kid: 'rs-1', use: 'sig', alg: 'RS256' };
const resources = new Set([resource, other].filter(Boolean));

// The upstream toolgate calls with the user's authority.
const PROFILE_API = 'https://profile-api.example.com/';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';

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
    { ...client('toolgate', 'toolgate-secret'), grant_types: ['client_credentials', TOKEN_EXCHANGE] },
  ],
  // The exchanged token says who acts for the user (RFC 8693 §4.1).
  extraTokenClaims: (ctx) => (ctx?.oidc?.params?.grant_type === TOKEN_EXCHANGE
    ? { act: { sub: ctx.oidc.client.clientId } }
    : undefined),
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

// The claims of a JWT access token this provider signed, still valid; else undefined.
function verified(jwt) {
  const parts = String(jwt).split('.');
  if (parts.length !== 3) return undefined;
  const signed = verify('RSA-SHA256', Buffer.from(`${parts[0]}.${parts[1]}`), publicKey,
    Buffer.from(parts[2], 'base64url'));
  if (!signed) return undefined;
  const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString());
  return claims.iss === issuer && claims.exp * 1000 > Date.now() ? claims : undefined;
}

provider.registerGrantType(TOKEN_EXCHANGE, async (ctx) => {
  const { params, client } = ctx.oidc;
  if (params.subject_token_type !== ACCESS_TOKEN) {
    throw new errors.InvalidRequest('subject_token_type must be an access token');
  }
  const subject = verified(params.subject_token);
  // Only a token issued for toolgate is exchanged: a token for anything else is not
  // toolgate's to trade.
  if (!subject || subject.aud !== resource) {
    throw new errors.InvalidGrant('the subject token is not a valid access token for toolgate');
  }
  if (params.resource !== PROFILE_API) throw new errors.InvalidTarget();
  const token = new provider.AccessToken({
    accountId: subject.sub,
    client,
    gty: 'token_exchange',
    scope: 'profile:read',
  });
  token.resourceServer = new provider.ResourceServer(PROFILE_API, {
    audience: PROFILE_API,
    scope: 'profile:read',
    accessTokenTTL: 300,
    accessTokenFormat: 'jwt',
    jwt: { sign: { alg: 'RS256' } },
  });
  const value = await token.save();
  ctx.body = {
    access_token: value,
    issued_token_type: ACCESS_TOKEN,
    token_type: 'Bearer',
    expires_in: token.expiration,
    scope: token.scope,
  };
}, ['subject_token', 'subject_token_type', 'requested_token_type', 'audience', 'resource', 'scope'],
['audience', 'resource']);

createServer(provider.callback()).listen(Number(port), '127.0.0.1', () => {
  console.log('ready');
});
