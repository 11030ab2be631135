#!/usr/bin/env node
// Rummy Arena starter bot for Node.js.
//
// A bot is a gRPC server; the arena's referee is its client (docs/PROTOCOL.md).
// This file is the plumbing: it reads bot.proto at run time (protobufjs), serves
//   grpc.health.v1.Health/Check   "SERVING" once we are up (the arena polls it),
//   rummy_arena.v1.Bot/Handshake  who we are and which protocol we speak,
//   rummy_arena.v1.Bot/PlayMatch  one stream per match: a reply to every decision,
// and hands each decision to strategy.js, which is where the playing happens.
//
// Usage:
//   ARENA_BOT_ADDRESS=unix:/tmp/js.sock node bot.js   (what the arena does)
//   node bot.js --address unix:/tmp/js.sock           (you, e.g. in a debugger)
//   node bot.js --address grpc://127.0.0.1:50051      (TCP; "127.0.0.1:50051" works too)
//
// Everything we log goes to stderr: the arena keeps it in a file next to the replay.
// Set JS_BOT_VERBOSE=1 (e.g. in the manifest's [env] table) to log every decision.

'use strict';

const fs = require('node:fs');
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
// The .proto parser and codec itself, not @grpc/proto-loader on top of it: the loader
// also builds descriptors of every message for reflection, which a bot never uses
// (30-35 ms of CPU more at every start, measured by benchmarks/bench_cold_ladder.py).
const protobuf = require('protobufjs');
const { decide } = require('./strategy');

const PROTOCOL_VERSION = 1; // the protocol this bot speaks (bot.proto, "version 1")
const INFO = {
  name: 'js-starter', // letters, digits, "-", "_", "."
  author: 'Rummy Arena starter kit',
  version: '1.0.0',
  games: ['gin-rummy/*'], // every Gin Rummy rule set
};
const VERBOSE = process.env.JS_BOT_VERBOSE === '1';

function log(...args) {
  console.error(`[${INFO.name}]`, ...args); // console.error writes to stderr
}

// ---------------------------------------------------------------- the protocol --

// How the messages look in JavaScript (as @grpc/proto-loader gives them with these options):
//   keepCase  field names as in the .proto (request_id, legal_actions, ...): see loadProtos
//   longs     uint64 values (request_id) as strings, echoed back unchanged
//   enums     enum values as their names ("PHASE_DRAW")
//   defaults  absent fields get their default ("" , 0, [])
//   oneofs    each oneof gets a field naming its set member (message.body === "decision")
const OBJECT_OPTIONS = { longs: String, enums: String, defaults: true, oneofs: true };

/**
 * The folder holding arena/proto/bot.proto: $ARENA_PROTO_DIR if set, else a
 * protos/ folder next to this file (put a copy there when you move the bot out
 * of the repository), else the repository's protos/ two levels up.
 */
function findProtoDir() {
  const candidates = process.env.ARENA_PROTO_DIR
    ? [path.resolve(process.env.ARENA_PROTO_DIR)]
    : [path.join(__dirname, 'protos'), path.join(__dirname, '..', '..', 'protos')];
  for (const dir of candidates) {
    if (fs.existsSync(path.join(dir, 'arena', 'proto', 'bot.proto'))) return dir;
  }
  throw new Error(`arena/proto/bot.proto not found in ${candidates.join(' or ')}`);
}

function loadProtos() {
  const root = new protobuf.Root();
  const files = [path.join(findProtoDir(), 'arena', 'proto', 'bot.proto'), path.join(__dirname, 'health.proto')];
  root.loadSync(files, { keepCase: true });
  root.resolveAll();
  return {
    Bot: serviceDefinition(root.lookupService('rummy_arena.v1.Bot')),
    Health: serviceDefinition(root.lookupService('grpc.health.v1.Health')),
  };
}

/** A grpc-js service definition: each method's path, streaming and (de)serializers. */
function serviceDefinition(service) {
  const definition = {};
  for (const method of service.methodsArray) {
    const request = method.resolvedRequestType;
    const response = method.resolvedResponseType;
    definition[method.name] = {
      path: `/${service.fullName.slice(1)}/${method.name}`,
      originalName: method.name,
      requestStream: Boolean(method.requestStream),
      responseStream: Boolean(method.responseStream),
      requestSerialize: (object) => request.encode(request.fromObject(object)).finish(),
      requestDeserialize: (bytes) => request.toObject(request.decode(bytes), OBJECT_OPTIONS),
      responseSerialize: (object) => response.encode(response.fromObject(object)).finish(),
      responseDeserialize: (bytes) => response.toObject(response.decode(bytes), OBJECT_OPTIONS),
    };
  }
  return definition;
}

// ------------------------------------------------------------------- services --

// grpc.health.v1.Health. We are ready as soon as the server listens, so Check
// always says SERVING. Watch is left out: grpc-js answers UNIMPLEMENTED for it.
const healthService = {
  Check(call, callback) {
    const service = call.request.service;
    if (service === '' || service === 'rummy_arena.v1.Bot') {
      callback(null, { status: 'SERVING' });
    } else {
      callback({ code: grpc.status.NOT_FOUND, details: `unknown service ${JSON.stringify(service)}` });
    }
  },
};

const botService = {
  // Once per connection, after SERVING. Refuse a protocol version we do not speak.
  Handshake(call, callback) {
    const { protocol_version: theirs, referee } = call.request;
    if (theirs !== PROTOCOL_VERSION) {
      log(`handshake refused: referee ${referee || '?'} speaks protocol ${theirs}`);
      callback({
        code: grpc.status.FAILED_PRECONDITION,
        details:
          `protocol version mismatch: the referee speaks version ${theirs}, ` +
          `this bot speaks version ${PROTOCOL_VERSION}`,
      });
      return;
    }
    log(`handshake with ${referee || 'a referee'}`);
    callback(null, { ...INFO, protocol_version: PROTOCOL_VERSION });
  },

  // One bidirectional stream per match. Every RefereeMessage arrives as a 'data'
  // event; we answer each DecisionRequest with exactly one DecisionReply carrying
  // its request_id, and write nothing else.
  PlayMatch(call) {
    let seat = -1;
    call.on('data', (message) => {
      switch (message.body) {
        case 'match_start': {
          const start = message.match_start;
          seat = start.seat;
          log(`match ${start.match_id}: ${start.game_id}, seat ${seat} of ${start.players.join(' vs ')}, ${start.games} game(s)`);
          break;
        }
        case 'decision':
          call.write({ decision: reply(message.decision) });
          break;
        case 'hand_end': {
          const end = message.hand_end;
          if (VERBOSE) log(`hand ${end.game_number}.${end.hand_number}: ${end.termination}, winner seat ${end.winner}`);
          break;
        }
        case 'game_end': {
          const end = message.game_end;
          const outcome = end.winner === seat ? 'won' : end.winner === -1 ? 'drawn' : 'lost';
          log(`game ${end.game_number} ${outcome}: scores ${end.scores.join('-')} (${end.reason})`);
          break;
        }
        case 'match_end':
          log(`match over: games won by seat ${message.match_end.wins.join('-')}`);
          break;
        case 'notice':
          log(`notice from the referee: ${message.notice.text}`);
          break;
        default: // game_start, hand_start: nothing to do here
          break;
      }
    });
    // The referee closes its side after MatchEnd (or when it gives up): close ours.
    call.on('end', () => call.end());
    call.on('error', (error) => log(`match stream error: ${error.message}`));
  },
};

/** The DecisionReply for one DecisionRequest; never throws. */
function reply(request) {
  let choice = { index: 0, comment: '' };
  try {
    choice = decide(request);
  } catch (error) {
    // A bug in the strategy must not cost the game: fall back to the first legal action.
    log(`strategy failed, playing legal action 0: ${error.stack}`);
  }
  if (VERBOSE) log(`request ${request.request_id} ${request.observation.phase}: #${choice.index} ${choice.comment}`);
  const comment = choice.comment || '';
  // A full Action instead of an index: e.g. a knock with melds of your own choosing,
  // { knock: { card: '9S', melds: [{ cards: ['7C', '7D', '7H'] }, ...] } }.
  if (choice.action) return { request_id: request.request_id, action: choice.action, comment };
  // legal_index is in a oneof, so 0 is still sent (and means "the first action").
  return { request_id: request.request_id, legal_index: choice.index, comment };
}

// --------------------------------------------------------------------- server --

/** The address to listen on: --address ADDR, else $ARENA_BOT_ADDRESS. */
function listenAddress(argv) {
  let address = process.env.ARENA_BOT_ADDRESS;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--address' && i + 1 < argv.length) address = argv[++i];
    else if (argv[i].startsWith('--address=')) address = argv[i].slice('--address='.length);
  }
  if (!address) {
    log('no address: set ARENA_BOT_ADDRESS or pass --address unix:/tmp/js.sock (or grpc://127.0.0.1:50051)');
    process.exit(2);
  }
  // grpc-js takes "unix:/path" and "host:port"; the arena writes TCP as grpc://host:port.
  return address.startsWith('grpc://') ? address.slice('grpc://'.length) : address;
}

function main() {
  const address = listenAddress(process.argv.slice(2));
  let protos;
  try {
    protos = loadProtos();
  } catch (error) {
    log(`cannot load the protocol: ${error.message}`);
    process.exit(1);
  }
  const { Bot, Health } = protos;

  // A socket file left by an earlier run you started yourself would block the bind.
  if (address.startsWith('unix:')) {
    const socketPath = address.slice('unix:'.length);
    try {
      if (fs.statSync(socketPath).isSocket()) fs.unlinkSync(socketPath);
    } catch {
      // no such file: nothing to clean
    }
  }

  const server = new grpc.Server();
  server.addService(Health, healthService);
  server.addService(Bot, botService);
  server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (error) => {
    if (error) {
      log(`cannot listen on ${address}: ${error.message}`);
      process.exit(1);
    }
    log(`serving on ${address} (node ${process.version}, pid ${process.pid})`);
  });

  // The arena stops a bot with SIGTERM (then SIGKILL); Ctrl-C sends SIGINT.
  const stop = (signal) => {
    log(`${signal}: shutting down`);
    server.forceShutdown(); // cancels any open match stream
    process.exit(0);
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main();
