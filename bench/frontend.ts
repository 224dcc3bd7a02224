/**
 * (g) GET /api/frontend evaluating 1,000 flags (3 strategies each) for a random context per
 * request, beside a bare node:http server answering one such answer's bytes and headers; as in
 * `npm run bench` (sdk-bench.ts); then (g620), the same on issue 35's shape (frontend-data.ts:
 * 1,000 flags of one project, ~610 toggles and ~100 KB per answer).
 *   node bench/frontend.ts
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/frontend.ts
 */
import { runSdkBench } from './sdk-bench.ts'

await runSdkBench(['g', 'g620'])
