// The bare gRPC baseline in Node.js (bench_cold_ladder.py): a server as grpc-js's own
// examples write one (grpc-js and @grpc/proto-loader), the health check and the
// handshake answered at once, every decision with index 0.
// Run from sample_bots/js (its node_modules):  node ../../benchmarks/bare_server.js
'use strict';

const path = require('node:path');
const modules = path.join(process.cwd(), 'node_modules');
const grpc = require(path.join(modules, '@grpc/grpc-js'));
const protoLoader = require(path.join(modules, '@grpc/proto-loader'));

const OPTIONS = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };
const top = path.join(__dirname, '..');
const bot = protoLoader.loadSync(path.join(top, 'protos', 'arena', 'proto', 'bot.proto'), OPTIONS);
const health = protoLoader.loadSync(path.join(top, 'sample_bots', 'js', 'health.proto'), OPTIONS);

const server = new grpc.Server();
server.addService(grpc.loadPackageDefinition(health).grpc.health.v1.Health.service, {
  Check: (call, callback) => callback(null, { status: 'SERVING' }),
});
server.addService(grpc.loadPackageDefinition(bot).rummy_arena.v1.Bot.service, {
  Handshake: (call, callback) => callback(null, { name: 'bare', protocol_version: 1 }),
  PlayMatch(call) {
    call.on('data', (message) => {
      if (message.body === 'decision') {
        call.write({ decision: { request_id: message.decision.request_id, legal_index: 0 } });
      }
    });
    call.on('end', () => call.end());
  },
});
server.bindAsync(process.env.ARENA_BOT_ADDRESS, grpc.ServerCredentials.createInsecure(), (error) => {
  if (error) throw error;
});
process.on('SIGTERM', () => server.forceShutdown());
