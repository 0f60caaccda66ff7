#!/bin/sh
# The frontend container's entry point:
#   nginx   render nginx's configuration from the environment, then run nginx in the foreground
#   check   render it and ask nginx whether it is valid (exit 1, saying why, when it is not)
#   health  ask this nginx (not the backend) whether it answers, for the container's healthcheck
set -eu

# BACKEND_UPSTREAM: the backend's host:port. TRUSTED_PROXIES: behind another proxy (an Ingress
# controller, a load balancer), the networks of that proxy, whose X-Forwarded-For names the client.
render() {
  upstream=${BACKEND_UPSTREAM:-backend:8080}
  case "$upstream" in
    '' | *[!A-Za-z0-9.:_-]*)
      echo "ward-frontend: BACKEND_UPSTREAM=\"$upstream\" is not a host:port. Fix: set it to the backend's address, such as backend:8080." >&2
      exit 1
      ;;
  esac
  : >/tmp/ward-real-ip.conf
  for network in $(printf '%s' "${TRUSTED_PROXIES:-}" | tr ',' ' '); do
    case "$network" in
      *[!0-9A-Fa-f.:/]*)
        echo "ward-frontend: TRUSTED_PROXIES holds \"$network\", which is not an address or network. Fix: list networks such as 10.0.0.0/8, separated by commas." >&2
        exit 1
        ;;
    esac
    echo "set_real_ip_from $network;" >>/tmp/ward-real-ip.conf
  done
  if [ -s /tmp/ward-real-ip.conf ]; then
    printf 'real_ip_header X-Forwarded-For;\nreal_ip_recursive on;\n' >>/tmp/ward-real-ip.conf
  fi
  sed "s|__BACKEND_UPSTREAM__|$upstream|g" /etc/nginx/ward/nginx.conf.template >/tmp/ward-nginx.conf
}

case "${1:-nginx}" in
  nginx)
    render
    exec nginx -e stderr -c /tmp/ward-nginx.conf -g 'daemon off;'
    ;;
  check)
    render
    exec nginx -e stderr -t -q -c /tmp/ward-nginx.conf
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
