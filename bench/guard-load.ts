/**
 * bench/guard.ts's load generator, in a worker thread: the guard measures its own main thread's
 * CPU (the servers'), and this thread's is not counted. For each message, autocannon sends a fixed
 * number of requests over 10 connections and answers how many had the expected status.
 */
import { parentPort } from 'node:worker_threads'
import autocannon from 'autocannon'
import { shapeContextQuery } from './frontend-data.ts'

export interface LoadRequest {
  url: string
  method: 'GET' | 'POST'
  headers: Record<string, string>
  body?: string
  /** A random (g620) context in each request's query, on this path. */
  randomContextPath?: string
  amount: number
  expectedStatus: number
}

export interface LoadAnswer {
  expected: number
  unexpected: number
  errors: number
}

parentPort!.on('message', async (request: LoadRequest) => {
  const path = request.randomContextPath
  const result = await autocannon({
    url: request.url,
    method: request.method,
    headers: request.headers,
    body: request.body,
    connections: 10,
    amount: request.amount,
    requests: path === undefined ? undefined : [{ setupRequest: (sent: any) => ({ ...sent, path: `${path}?${shapeContextQuery()}` }) }],
  } as autocannon.Options)
  const statuses = Object.entries(result.statusCodeStats ?? {}) as [string, { count: number }][]
  const expected = statuses.reduce((sum, [code, { count }]) => (code === String(request.expectedStatus) ? sum + count : sum), 0)
  const answer: LoadAnswer = {
    expected,
    unexpected: statuses.reduce((sum, [, { count }]) => sum + count, 0) - expected,
    errors: result.errors + result.timeouts,
  }
  parentPort!.postMessage(answer)
})
