/**
 * A webhook receiver in a process of its own, for the integration tests: it records every POST
 * (path, headers, body, unzipped when gzipped) and answers with the status it is told (`PUT /status/503`); `GET /received`
 * lists what arrived. Told `PUT /slack` (a JSON list of channels), it answers as Slack's chat.postMessage:
 * `{ok: true}`, or for those channels `{ok: false, error: "channel_not_found"}`.
 * Run by startReceiver(); prints its port on its first line.
 */
import { spawn } from 'node:child_process'
import { createServer } from 'node:http'
import { once } from 'node:events'
import { gunzipSync } from 'node:zlib'

if (process.argv[2] === 'serve') {
  const received: { path: string; headers: Record<string, unknown>; body: string }[] = []
  let status = 200
  let slackRefuses: string[] | undefined
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      // A gzipped body (New Relic's) is recorded unzipped.
      const raw = Buffer.concat(chunks)
      const body = (request.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8')
      const setStatus = /^\/status\/(\d{3})$/.exec(request.url ?? '')
      if (request.method === 'PUT' && setStatus) {
        status = Number(setStatus[1])
        return response.end()
      }
      if (request.method === 'PUT' && request.url === '/slack') {
        slackRefuses = JSON.parse(body) as string[]
        return response.end()
      }
      if (request.method === 'GET' && request.url === '/received') {
        response.setHeader('content-type', 'application/json')
        return response.end(JSON.stringify(received))
      }
      if (status === 200) received.push({ path: request.url ?? '', headers: request.headers, body })
      response.statusCode = status
      if (slackRefuses === undefined || status !== 200) return response.end()
      const { channel } = JSON.parse(body) as { channel: string }
      response.setHeader('content-type', 'application/json; charset=utf-8')
      response.end(JSON.stringify(slackRefuses.includes(channel) ? { ok: false, error: 'channel_not_found' } : { ok: true, channel }))
    })
  })
  server.listen(0, '127.0.0.1', () => {
    const address = server.address()
    process.stdout.write(`${typeof address === 'object' && address ? address.port : 0}\n`)
  })
}

export interface Receiver {
  url: string
  /** What arrived while it answered 200, oldest first. */
  received(): Promise<{ path: string; headers: Record<string, string>; body: string }[]>
  answer(status: number): Promise<void>
  /** From now on, answer as Slack's chat.postMessage, refusing these channels. */
  answerAsSlack(refusedChannels: string[]): Promise<void>
  stop(): Promise<void>
}

export async function startReceiver(): Promise<Receiver> {
  const child = spawn(process.execPath, [new URL(import.meta.url).pathname, 'serve'], { stdio: ['ignore', 'pipe', 'inherit'] })
  const [first] = (await once(child.stdout, 'data')) as [Buffer]
  const url = `http://127.0.0.1:${Number(first.toString().trim())}`
  return {
    url,
    received: async () => (await fetch(`${url}/received`)).json() as never,
    answer: async (status) => void (await fetch(`${url}/status/${status}`, { method: 'PUT' })),
    answerAsSlack: async (refusedChannels) => void (await fetch(`${url}/slack`, { method: 'PUT', body: JSON.stringify(refusedChannels) })),
    stop: async () => {
      child.kill()
      if (child.exitCode === null) await once(child, 'exit')
    },
  }
}
