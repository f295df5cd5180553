// A real OpenID Connect provider for the single sign-on tests (node_modules/oidc-provider,
// the certified provider for Node), on 127.0.0.1. tests/builders/provider.py starts it with:
//   OIDC_TEST_PORT           the port to listen on
//   OIDC_TEST_REDIRECT_URIS  the app's callback addresses, comma-separated
//   OIDC_TEST_POST_LOGOUT_REDIRECT_URIS  where signing out may send back to, comma-separated
//   OIDC_TEST_ACCOUNTS       a JSON file {accountId: {preferred_username, email, groups}},
//                            read at every sign-in, so a test can change someone's groups
// Its own development sign-in form takes any password; the account is the login typed.
// Two clients: the app's, and another app's, whose ID tokens the app must refuse.
import { readFileSync } from 'node:fs';

import Provider from 'oidc-provider';

const port = Number(process.env.OIDC_TEST_PORT);
const issuer = `http://127.0.0.1:${port}`;
const uris = (name) => (process.env[name] || '').split(',').filter(Boolean);
const client = (clientId) => ({
  client_id: clientId,
  client_secret: `${clientId}-test-secret`,
  redirect_uris: uris('OIDC_TEST_REDIRECT_URIS'),
  post_logout_redirect_uris: uris('OIDC_TEST_POST_LOGOUT_REDIRECT_URIS'),
  grant_types: ['authorization_code'],
  response_types: ['code'],
});
const scope = 'openid profile email groups';

function accounts() {
  return JSON.parse(readFileSync(process.env.OIDC_TEST_ACCOUNTS, 'utf8'));
}

const provider = new Provider(issuer, {
  clients: [client('grounding-review'), client('another-app')],
  scopes: scope.split(' '),
  claims: {
    openid: ['sub'],
    profile: ['preferred_username', 'name'],
    email: ['email'],
    groups: ['groups'],
  },
  async findAccount(ctx, id) {
    const account = accounts()[id];
    if (!account) return undefined;
    return { accountId: id, claims: async () => ({ sub: id, ...account }) };
  },
  // The app is this provider's own first party: no consent page, every scope granted.
  async loadExistingGrant(ctx) {
    const grantId = ctx.oidc.result?.consent?.grantId
      || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
    if (grantId) return ctx.oidc.provider.Grant.find(grantId);
    const grant = new ctx.oidc.provider.Grant({
      accountId: ctx.oidc.session.accountId,
      clientId: ctx.oidc.client.clientId,
    });
    grant.addOIDCScope(scope);
    await grant.save();
    return grant;
  },
});

provider.listen(port, '127.0.0.1', () => {
  console.log(`oidc-provider listening on ${issuer}`);
});
