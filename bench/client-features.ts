/**
 * (f) GET /api/client/features, 1,000 flags × 3 strategies, the full answer (segments apart, as
 * `Unleash-Client-Spec: 5.2.0` asks), and (f′) the same with If-None-Match (304), each beside a
 * bare node:http server answering the same bytes and headers; as in `npm run bench` (sdk-bench.ts).
 *   node bench/client-features.ts
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/client-features.ts
 */
import { runSdkBench } from './sdk-bench.ts'

await runSdkBench(['f', 'f304'])
