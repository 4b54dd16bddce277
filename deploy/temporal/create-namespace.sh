#!/bin/sh
# The default namespace and Herald's search attributes (workers also add missing ones at start).
set -eu
NS=${TEMPORAL_NAMESPACE:-default}
until temporal operator cluster health --address "$TEMPORAL_ADDRESS" | grep -q SERVING; do sleep 1; done
temporal operator namespace describe -n "$NS" --address "$TEMPORAL_ADDRESS" >/dev/null 2>&1 \
  || temporal operator namespace create -n "$NS" --retention 30d --address "$TEMPORAL_ADDRESS"
for attr in HeraldSessionId HeraldModel HeraldPrimaryModel HeraldProvider HeraldStatus HeraldTitle; do
  temporal operator search-attribute create --name "$attr" --type Keyword -n "$NS" --address "$TEMPORAL_ADDRESS" 2>/dev/null \
    || echo "search attribute $attr exists"
done
echo "namespace $NS ready"
