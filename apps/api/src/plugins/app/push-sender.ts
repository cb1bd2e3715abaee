import { createPushSender, type PushSender } from '@webpush/push';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyInstance {
    /** Sends web pushes (test notifications); keep-alive connections pooled per push service. */
    pushSender: PushSender;
  }
}

export interface PushSenderPluginOptions {
  /**
   * Test-only: a CA certificate (PEM) to trust besides Node's roots, for a stand-in push service
   * inside the test process. Deployed processes use NODE_EXTRA_CA_CERTS.
   */
  extraCa?: string;
}

export default fp(
  async (app: FastifyInstance, options: PushSenderPluginOptions) => {
    const sender = createPushSender({
      allowlist: app.config.pushServiceHosts,
      proxy: app.config.outboundProxy,
      ...(options.extraCa === undefined ? {} : { ca: options.extraCa }),
    });
    app.decorate('pushSender', sender);
    app.addHook('onClose', async () => sender.close());
  },
  { name: 'push-sender', dependencies: ['config'] },
);
