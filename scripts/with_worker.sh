#!/bin/sh
# Run a web server with the task worker (manage.py db_worker) beside it, and stop the worker
# when the server stops: on Ctrl+C, on a TERM sent to this script, or when the server exits.
#   scripts/with_worker.sh PYTHON SERVER-COMMAND [ARGUMENT...]
set -u
python=$1
shift

"$python" manage.py db_worker --no-reload &
worker=$!
"$@" &
server=$!

# Both run in the background (so this shell can catch signals while it waits), where
# SIGINT is ignored: the trap passes Ctrl+C on to the server as TERM.
trap 'kill -TERM "$server" 2>/dev/null' INT TERM
wait "$server"
status=$?
# A trap ends `wait` early; wait again until the server has really gone.
while kill -0 "$server" 2>/dev/null; do
    wait "$server"
    status=$?
done
kill -TERM "$worker" 2>/dev/null
wait "$worker" 2>/dev/null
exit "$status"
