#!/bin/sh
# Create the home on the first start (a new volume), then run the command as
# PID 1, so that it gets the container's SIGTERM and shuts down gracefully.
set -eu
home="${KAIROS_HOME:-/data}"
if [ ! -e "$home/kairos.toml" ] && [ ! -d "$home/logs" ]; then
    kairos --home "$home" init
fi
exec "$@"
