#!/bin/sh
# Run the demo's server with what a team would have beside it, on loopback:
# - a webhook receiver (scripts/demo_webhook_receiver.py, port 8002), which prints each
#   delivery once its signature is verified; `manage.py demo` registered it and wrote its
#   secret to var/demo-webhook-secret;
# - single sign-on through a real OpenID Connect provider (the test suite's: tests/oidc_provider,
#   node's oidc-provider package, port 8001), whose people are
#   review/demo_data/sign_on_accounts.json. Without node the demo runs with passwords only,
#   and says so.
#   scripts/with_demo_services.sh PYTHON COMMAND [ARGUMENT...]
set -u
python=$1
shift
port=${DEMO_SSO_PORT:-8001}
hooks_port=${DEMO_WEBHOOK_PORT:-8002}
app=${DEMO_URL:-http://127.0.0.1:8000}
here=$(cd "$(dirname "$0")/.." && pwd)
provider_dir=$here/tests/oidc_provider
secret_file=$here/var/demo-webhook-secret

receiver=
provider=
log=$(mktemp)
stop_services() {
    [ -n "$receiver" ] && kill -TERM "$receiver" 2>/dev/null
    [ -n "$provider" ] && kill -TERM "$provider" 2>/dev/null
    rm -f "$log"
}
trap stop_services EXIT
# Ctrl+C reaches the server itself too, which stops as ever; this only stops the services.
trap 'stop_services; exit 130' INT TERM

if [ -f "$secret_file" ]; then
    "$python" "$here/scripts/demo_webhook_receiver.py" "$hooks_port" "$secret_file" &
    receiver=$!
fi

start_provider() {
    if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
        echo "(single sign-on is off in this demo: it needs node and npm for its provider)"
        return 1
    fi
    if [ ! -d "$provider_dir/node_modules" ]; then
        npm ci --prefix "$provider_dir" --no-audit --no-fund --loglevel=error || return 1
    fi
    (
        cd "$provider_dir" &&
        OIDC_TEST_PORT=$port \
        OIDC_TEST_REDIRECT_URIS="$app/sign-on/callback/,http://localhost:8000/sign-on/callback/" \
        OIDC_TEST_POST_LOGOUT_REDIRECT_URIS="$app/accounts/login/,http://localhost:8000/accounts/login/" \
        OIDC_TEST_ACCOUNTS="$here/review/demo_data/sign_on_accounts.json" \
        exec node provider.mjs
    ) >"$log" 2>&1 &
    provider=$!
    tries=0
    until grep -q "listening" "$log"; do
        tries=$((tries + 1))
        if [ "$tries" -gt 100 ] || ! kill -0 "$provider" 2>/dev/null; then
            echo "(single sign-on is off in this demo: its provider did not start)"; cat "$log"
            return 1
        fi
        sleep 0.1
    done
}

if start_provider; then
    echo ""
    echo "Single sign-on is on: \"Sign in with the demo provider\" on the sign-in page, then as"
    echo "  ines   group building-reviewers: Editor in default"
    echo "  omar   groups trust-and-safety, building-readers: Moderator in moderation, Reader in default"
    echo "(any password; staff see and change the groups' roles on /sign-on/roles/)."
    export OIDC_RP_CLIENT_ID=grounding-review
    export OIDC_RP_CLIENT_SECRET=grounding-review-test-secret
    # The endpoints come from the provider's discovery document.
    export OIDC_ISSUER=http://127.0.0.1:$port
    export REVIEW_SSO_PROVIDER_NAME="the demo provider"
fi
# Not exec: the traps stop the services when the server has gone.
"$@"
