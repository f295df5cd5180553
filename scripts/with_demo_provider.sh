#!/bin/sh
# Run the demo's server with single sign-on on, through a real OpenID Connect provider on
# loopback (the test suite's: tests/oidc_provider, node's oidc-provider package), whose people
# are review/demo_data/sign_on_accounts.json. Without node the demo runs as ever, with
# passwords only, and says so.
#   scripts/with_demo_provider.sh COMMAND [ARGUMENT...]
set -u
port=${DEMO_SSO_PORT:-8001}
app=${DEMO_URL:-http://127.0.0.1:8000}
here=$(cd "$(dirname "$0")/.." && pwd)
provider_dir=$here/tests/oidc_provider

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    echo "(single sign-on is off in this demo: it needs node and npm for its provider)"
    exec "$@"
fi
if [ ! -d "$provider_dir/node_modules" ]; then
    npm ci --prefix "$provider_dir" --no-audit --no-fund --loglevel=error || exec "$@"
fi

log=$(mktemp)
(
    cd "$provider_dir" &&
    OIDC_TEST_PORT=$port \
    OIDC_TEST_REDIRECT_URIS="$app/sign-on/callback/,http://localhost:8000/sign-on/callback/" \
    OIDC_TEST_POST_LOGOUT_REDIRECT_URIS="$app/accounts/login/,http://localhost:8000/accounts/login/" \
    OIDC_TEST_ACCOUNTS="$here/review/demo_data/sign_on_accounts.json" \
    exec node provider.mjs
) >"$log" 2>&1 &
provider=$!
stop_provider() { kill -TERM "$provider" 2>/dev/null; rm -f "$log"; }
trap stop_provider EXIT
# Ctrl+C reaches the server itself too, which stops as ever; this only stops the provider.
trap 'stop_provider; exit 130' INT TERM

issuer=http://127.0.0.1:$port
tries=0
until grep -q "listening" "$log"; do
    tries=$((tries + 1))
    if [ "$tries" -gt 100 ] || ! kill -0 "$provider" 2>/dev/null; then
        echo "(single sign-on is off in this demo: its provider did not start)"; cat "$log"
        kill -TERM "$provider" 2>/dev/null
        exec "$@"
    fi
    sleep 0.1
done

echo ""
echo "Single sign-on is on: \"Sign in with the demo provider\" on the sign-in page, then as"
echo "  ines   group building-reviewers: Editor in default"
echo "  omar   groups trust-and-safety, building-readers: Moderator in moderation, Reader in default"
echo "(any password; staff see and change the groups' roles on /sign-on/roles/)."

export OIDC_RP_CLIENT_ID=grounding-review
export OIDC_RP_CLIENT_SECRET=grounding-review-test-secret
# The endpoints come from the provider's discovery document.
export OIDC_ISSUER=$issuer
export REVIEW_SSO_PROVIDER_NAME="the demo provider"
# Not exec: the trap stops the provider when the server has gone.
"$@"
