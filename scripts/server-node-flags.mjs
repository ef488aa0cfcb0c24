// Node flags the gateway runs with, shared by `npm start` (scripts/start.mjs) and `npm run bench`.
//
// --no-allocation-site-pretenuring: V8 watches where objects are allocated, and when the objects of
// one site have survived garbage collections at a high rate for a while it allocates that site's
// objects straight into the old generation from then on. A relay sees such a phase whenever many
// requests are held open at once (a thousand slow streams, a stall while a log batch is written),
// after which request-scoped objects are made old: the young objects they point to then survive
// every scavenge, and the process stays in that state. Measured with --trace-gc-nvp over wrk runs,
// about half of the gateway processes fell into it (7.8 KB instead of 0.5 KB promoted per
// non-stream request, 23 KB instead of 1 KB per stream; GC pauses of 50 to 130 µs per request
// instead of 9 to 15; 180 KB of RSS per paced stream instead of 65). With the flag, none did.
export const SERVER_NODE_FLAGS = ['--no-allocation-site-pretenuring'];
