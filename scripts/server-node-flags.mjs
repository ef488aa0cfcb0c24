// Node flags the gateway runs with, shared by `npm start` (scripts/start.mjs) and the benchmark.
//
// --max-semi-space-size: the young generation holds every request's short-lived objects; at
// thousands of requests a second V8's default (16 MiB) scavenges so often that objects still in
// use (requests under way, log rows waiting for the next batch) are copied again and again and
// promoted. 32 MiB halves the scavenges; the relay's garbage collection share fell from about 5 %
// to 4 % of its CPU time in `npm run bench -- --cpu-prof`.
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=32'];
