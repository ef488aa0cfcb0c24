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
//
// --max-semi-space-size=32: the young generation holds each call's short-lived objects, and under
// load the calls in flight and the log rows waiting for their batch are alive at every scavenge;
// with V8's default (16 MiB) they are scavenged twice as often, copied again each time, and more of
// them promoted. In A/B rounds of one build with and without it (bench, 50 connections,
// non-stream), 32 MiB gave 188 against 213 µs of CPU a call (median of 12 alternating rounds;
// lower in 9 of them) and a p99 of 50 against 91 ms; 64 MiB gave nothing more.
export const SERVER_NODE_FLAGS = ['--no-allocation-site-pretenuring', '--max-semi-space-size=32'];
