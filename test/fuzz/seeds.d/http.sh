# http: request heads as scrapers and attackers send them
mkdir -p "$out/http"
printf 'GET /metrics HTTP/1.1\r\nHost: localhost:9404\r\nUser-Agent: Prometheus/2.45\r\nAccept: text/plain;version=0.0.4\r\n\r\n' > "$out/http/scrape"
printf 'HEAD / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n' > "$out/http/head10"
printf 'GET /metrics HTTP/1.1\r\nConnection: close\r\n\r\nGET / HTTP/1.1\r\n\r\n' > "$out/http/pipelined"
printf 'POST /metrics HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello' > "$out/http/post"
printf 'GET /metrics HTTP/2.0\r\n\r\n' > "$out/http/http2"
printf 'GET / HTTP/1.1\r\nX: a\r\n b\r\n\r\n' > "$out/http/fold"
