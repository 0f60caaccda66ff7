#!/usr/bin/env bash
# Builds, without any registry, the three base images the deploy test passes to deploy/'s
# Dockerfiles in place of the official ones (node, debian, nginx, postgres):
#   ward-ci/debian:bookworm   debootstrap's minimal Debian bookworm, imported
#   ward-ci/node:24           that, plus the Node of the npm `node` package this checkout pins and npm
#   ward-ci/nginx:bookworm    that, plus Debian's nginx
#   ward-ci/postgres:15       that, plus Debian's PostgreSQL 15 and postgres-entrypoint.sh beside this file
# An image already present is kept. Needs root, debootstrap and a running Docker engine.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

have() { docker image inspect "$1" >/dev/null 2>&1; }
mirror=${WARD_DEBIAN_MIRROR:-http://deb.debian.org/debian}

if ! have ward-ci/debian:bookworm; then
  echo "base-images: debootstrap bookworm from $mirror"
  debootstrap --variant=minbase bookworm "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 ||
    { tail -n 20 "$work/debootstrap.log" >&2; exit 1; }
  rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb "$work/rootfs/var/lib/apt/lists/"*
  tar -C "$work/rootfs" -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["bash"]' - ward-ci/debian:bookworm >/dev/null
  rm -rf "$work/rootfs"
fi

if ! have ward-ci/node:24; then
  echo "base-images: Node $("$root/node_modules/node/bin/node" --version) and npm into ward-ci/node:24"
  mkdir -p "$work/node"
  cp "$root/node_modules/node/bin/node" "$work/node/node"
  (cd "$work/node" && npm pack --silent "npm@$(npm --version)" >/dev/null && mkdir npm &&
    tar -xzf npm-*.tgz -C npm --strip-components=1 && rm npm-*.tgz)
  cat >"$work/node/Dockerfile" <<'DOCKERFILE'
FROM ward-ci/debian:bookworm
COPY node /usr/local/bin/node
COPY npm/ /usr/local/lib/node_modules/npm/
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm && \
    ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx && node --version && npm --version
DOCKERFILE
  docker build -q -t ward-ci/node:24 "$work/node" >/dev/null
fi

if ! have ward-ci/nginx:bookworm; then
  echo "base-images: Debian's nginx into ward-ci/nginx:bookworm"
  mkdir -p "$work/nginx"
  cat >"$work/nginx/Dockerfile" <<'DOCKERFILE'
FROM ward-ci/debian:bookworm
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nginx && \
    rm -rf /var/lib/apt/lists/* /etc/nginx/sites-enabled/default
DOCKERFILE
  docker build -q -t ward-ci/nginx:bookworm "$work/nginx" >/dev/null
fi

if ! have ward-ci/postgres:15; then
  echo "base-images: Debian's PostgreSQL 15 into ward-ci/postgres:15"
  mkdir -p "$work/postgres"
  cp "$root/test/deploy/postgres-entrypoint.sh" "$work/postgres/entrypoint.sh"
  cat >"$work/postgres/Dockerfile" <<'DOCKERFILE'
FROM ward-ci/debian:bookworm
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15 && \
    rm -rf /var/lib/apt/lists/* && mkdir -p /var/lib/postgresql/data && \
    chown postgres:postgres /var/lib/postgresql/data && chmod 700 /var/lib/postgresql/data
COPY entrypoint.sh /usr/local/bin/postgres-entrypoint
USER postgres
VOLUME ["/var/lib/postgresql/data"]
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["/usr/local/bin/postgres-entrypoint"]
DOCKERFILE
  docker build -q -t ward-ci/postgres:15 "$work/postgres" >/dev/null
fi
