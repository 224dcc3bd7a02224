/**
 * A webhook receiver for bench/integrations.ts, in a process of its own: it counts deliveries
 * (distinct `webhook-id`s too) and how long after its event's time each arrived, keeping no body.
 * `PUT /status/503` makes it refuse (deliveries pile up), `PUT /status/200` takes them again;
 * `GET /stats` gives `{count, distinct, p50, p99, last}` (milliseconds; `last`: when the last arrived);
 * `DELETE /stats` starts them again.
 *   node bench/webhook-sink.ts   → prints its port
 */
import { createServer } from 'node:http'

const seen = new Set<string>()
const latencies: number[] = []
let count = 0
let last = 0
let status = 200

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0

const server = createServer((request, response) => {
  const setStatus = /^\/status\/(\d{3})$/.exec(request.url ?? '')
  if (request.method === 'PUT' && setStatus) {
    status = Number(setStatus[1])
    request.resume()
    return response.end()
  }
  if (request.method === 'GET' && request.url === '/stats') {
    const sorted = [...latencies].sort((a, b) => a - b)
    response.setHeader('content-type', 'application/json')
    return response.end(JSON.stringify({ count, distinct: seen.size, p50: percentile(sorted, 50), p99: percentile(sorted, 99), last }))
  }
  if (request.method === 'DELETE' && request.url === '/stats') {
    seen.clear()
    latencies.length = 0
    count = 0
    last = 0
    request.resume()
    return response.end()
  }
  let body = ''
  request.setEncoding('utf8')
  request.on('data', (chunk: string) => (body += chunk))
  request.on('end', () => {
    if (status === 200) {
      count++
      last = Date.now()
      seen.add(String(request.headers['webhook-id']))
      const createdAt = Date.parse((JSON.parse(body) as { createdAt: string }).createdAt)
      latencies.push(last - createdAt)
    }
    response.statusCode = status
    response.end()
  })
})
server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  process.stdout.write(`${typeof address === 'object' && address ? address.port : 0}\n`)
})
