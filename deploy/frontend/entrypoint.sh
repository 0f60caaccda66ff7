#!/bin/sh
# The frontend container's entry point:
#   nginx   render the parts of nginx's configuration that come from the environment, run nginx
#   check   render them and ask nginx whether the configuration is valid (exit 1 saying why if not)
#   health  ask this nginx (not the backend) whether it answers, for the container's healthcheck
#
# The environment:
#   BACKEND_UPSTREAM  the backend's host:port (default backend:8080)
#   BACKEND_RESOLVER  a DNS server that re-resolves BACKEND_UPSTREAM every 5 s, so that replicas
#                     that come, go or move are found: 127.0.0.11, Docker's, in Compose. Unset, the
#                     name is resolved once at start (a Kubernetes Service address never changes).
#   TRUSTED_PROXIES   networks of a proxy in front (an Ingress controller, a load balancer), comma-
#                     separated: its X-Forwarded-For names the client, its X-Forwarded-Proto is believed
set -eu
out=/tmp/ward-nginx

fail() {
  echo "ward-frontend: $1" >&2
  exit 1
}

render() {
  mkdir -p "$out"
  upstream=${BACKEND_UPSTREAM:-backend:8080}
  case "$upstream" in
    '' | *[!A-Za-z0-9.:_-]*) fail "BACKEND_UPSTREAM=\"$upstream\" is not a host:port. Fix: set it to the backend's address, such as backend:8080." ;;
  esac
  resolver=${BACKEND_RESOLVER:-}
  case "$resolver" in
    *[!0-9A-Fa-f.:]*) fail "BACKEND_RESOLVER=\"$resolver\" is not an IP address. Fix: set it to a DNS server's address, such as 127.0.0.11 (Docker's), or leave it unset." ;;
  esac
  if [ -n "$resolver" ]; then
    case "$resolver" in *:*) resolver="[$resolver]" ;; esac
    # A variable proxy_pass is resolved at request time, to every address the name has.
    printf 'resolver %s valid=5s;\nresolver_timeout 3s;\nmap $host $ward_backend { default "%s"; }\n' \
      "$resolver" "$upstream" >"$out/upstream.conf"
  else
    # The name of an upstream group in the variable: nginx uses the group, resolved at start.
    printf 'upstream ward_backend {\n  server %s;\n  keepalive 16;\n}\nmap $host $ward_backend { default ward_backend; }\n' \
      "$upstream" >"$out/upstream.conf"
  fi

  networks=''
  for network in $(printf '%s' "${TRUSTED_PROXIES:-}" | tr ',' ' '); do
    case "$network" in
      *[!0-9A-Fa-f.:/]*) fail "TRUSTED_PROXIES holds \"$network\", which is not an address or network. Fix: list networks such as 10.0.0.0/8, separated by commas." ;;
    esac
    networks="$networks $network"
  done
  {
    if [ -n "$networks" ]; then
      for network in $networks; do echo "set_real_ip_from $network;"; done
      # The last address before the trusted proxy is the client: one hop, never a chain a client wrote.
      echo 'real_ip_header X-Forwarded-For;'
      echo 'geo $realip_remote_addr $from_trusted_proxy {'
      echo '  default 0;'
      for network in $networks; do echo "  $network 1;"; done
      echo '}'
      echo 'map "$from_trusted_proxy:$http_x_forwarded_proto" $forwarded_proto {'
      echo '  default $scheme;'
      echo '  "1:https" https;'
      echo '  "1:http" http;'
      echo '}'
    else
      echo 'map $scheme $forwarded_proto { default $scheme; }'
    fi
  } >"$out/proxies.conf"

  if [ -e /proc/net/if_inet6 ]; then echo 'listen [::]:8080;' >"$out/listen.conf"; else : >"$out/listen.conf"; fi
}

case "${1:-nginx}" in
  nginx)
    render
    exec nginx -e stderr -c /etc/nginx/ward/nginx.conf -g 'daemon off;'
    ;;
  check)
    render
    exec nginx -e stderr -t -q -c /etc/nginx/ward/nginx.conf
    ;;
  health)
    # Neither curl nor wget is in every nginx image; bash is in every Debian-based one.
    exec bash -c 'exec 3<>/dev/tcp/127.0.0.1/8080 &&
      printf "GET /nginx-health HTTP/1.0\r\nHost: localhost\r\n\r\n" >&3 &&
      head -n 1 <&3 | grep -q " 200 "'
    ;;
  *)
    exec "$@"
    ;;
esac
