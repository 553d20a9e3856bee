#!/bin/sh
# tools/count.sh: counts to 5, telling the client how far it got
cat >/dev/null   # the arguments, unused
for i in 1 2 3 4 5; do
  sleep 1
  echo "toolshed:progress $i/5 Step $i of 5" >&2
done
echo "toolshed:log info Counted to 5" >&2
echo "done"
