import websocket from '@fastify/websocket';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../errors/app-error.js';
import { REALTIME_MAX_EVENT_BYTES, type RealtimeRelay } from '../../relay/realtime/realtime-relay.js';
import type { RealtimeSession } from '../../relay/realtime/realtime-session.js';

/**
 * `GET /v1/realtime?model=` (OpenAI's Realtime API over a WebSocket). Everything that can fail is
 * done before the upgrade, in the route's preHandler (RealtimeRelay.open), so a bad key, a model
 * the token may not use, a balance that cannot pay for a response or an upstream that refuses are
 * answered in HTTP with OpenAI's error body; the handler then only hands the open socket to the
 * session. The plugin lives in a scope of its own: it wraps the handler of every route registered
 * beside it, and the relay's other routes need none of that.
 */
export async function realtimeRoutes(scope: FastifyInstance, realtime: RealtimeRelay): Promise<void> {
  await scope.register(websocket, {
    options: {
      maxPayload: REALTIME_MAX_EVENT_BYTES,
      perMessageDeflate: false,
      // The browser SDK offers `realtime` beside its key and beta subprotocols: never echo a key back.
      handleProtocols: (protocols) => (protocols.has('realtime') ? 'realtime' : false),
    },
    // Shutdown: sessions close once no response is under way (RealtimeRelay.drain).
    preClose: (done) => {
      realtime.drain();
      done();
    },
    // A client's socket that fails (a bad frame, a reset) is dropped; the session sees it close.
    errorHandler: (error, socket, request) => {
      request.log.info({ err: error }, 'realtime client connection failed');
      socket.terminate();
    },
  });

  const opened = new WeakMap<FastifyRequest, { session: RealtimeSession; abandon: () => void }>();
  scope.get(
    '/v1/realtime',
    {
      websocket: true,
      preHandler: async (request, reply) => {
        if (!request.ws) {
          reply.header('upgrade', 'websocket');
          throw new AppError('request:upgrade_required', '/v1/realtime 需要 WebSocket 连接 (the Realtime API needs a WebSocket upgrade)', { status: 426 });
        }
        const socket = request.raw.socket;
        const session = await realtime.open(request, reply, () => socket.destroyed);
        if (session === undefined || socket.destroyed) {
          session?.abandon();
          reply.hijack();
          socket.destroy();
          return;
        }
        // The upgrade can still fail (the client leaves, a malformed handshake): the session is given up then.
        const abandon = () => session.abandon();
        socket.once('close', abandon);
        opened.set(request, { session, abandon });
      },
    },
    (socket, request) => {
      const found = opened.get(request);
      opened.delete(request);
      if (!found) {
        socket.close(1011, 'no session');
        return;
      }
      request.raw.socket.removeListener('close', found.abandon);
      found.session.start(socket);
    },
  );
}
