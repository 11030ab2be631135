// Rummy Arena starter bot in C++.
//
// A bot is a gRPC server; the arena's referee is its client (docs/PROTOCOL.md).
// This file is the plumbing. It serves
//   grpc.health.v1.Health/Check   SERVING once we listen (the arena polls it),
//   rummy_arena.v1.Bot/Handshake  who we are and which protocol we speak,
//   rummy_arena.v1.Bot/PlayMatch  one stream per match: a reply to every decision,
// and hands each decision to strategy.cpp, which is where the playing happens.
//
// Usage:
//   ARENA_BOT_ADDRESS=unix:/tmp/cpp.sock ./bot   (what the arena does)
//   ./bot --address unix:/tmp/cpp.sock           (you, e.g. under gdb)
//   ./bot --address grpc://127.0.0.1:50051       (TCP; "127.0.0.1:50051" works too)
//
// Everything we log goes to stderr: the arena keeps it in a file next to the replay.
// Set CPP_BOT_VERBOSE=1 (e.g. in the manifest's [env] table) to log every decision.
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "arena/proto/bot.grpc.pb.h"
#include "strategy.h"

namespace {

namespace pb = ::rummy_arena::v1;

constexpr uint32_t kProtocolVersion = 1;  // the protocol this bot speaks (bot.proto, "version 1")
// Who we are. Change kName here and `name` in bot.toml to make the bot yours.
const char* const kName = "cpp-starter";  // letters, digits, "-", "_", "."
const char* const kAuthor = "Rummy Arena starter kit";
const char* const kVersion = "1.0.0";
const char* const kGames = "gin-rummy/*";  // every Gin Rummy rule set

const bool kVerbose = [] {
  const char* value = std::getenv("CPP_BOT_VERBOSE");
  return value != nullptr && std::string(value) == "1";
}();

// One line to stderr, prefixed with our name.
void Log(const std::string& line) { std::cerr << "[" << kName << "] " << line << std::endl; }

template <typename Numbers>
std::string Joined(const Numbers& numbers, const char* separator) {
  std::ostringstream out;
  bool first = true;
  for (const auto& number : numbers) out << (first ? "" : separator) << number, first = false;
  return out.str();
}

// The DecisionReply for one DecisionRequest. A bug in the strategy must not cost
// the game: an exception plays the first legal action instead.
pb::DecisionReply ReplyTo(const pb::DecisionRequest& request) {
  starter::Choice choice;
  try {
    choice = starter::Decide(request);
  } catch (const std::exception& error) {
    Log(std::string("strategy failed, playing legal action 0: ") + error.what());
    choice = starter::Choice{};
  }
  if (kVerbose)
    Log("request " + std::to_string(request.request_id()) + " " + pb::Phase_Name(request.observation().phase()) +
        ": #" + std::to_string(choice.index) + " " + choice.comment);
  pb::DecisionReply reply;
  reply.set_request_id(request.request_id());
  reply.set_comment(choice.comment);
  if (choice.action)  // an action of our own, e.g. a knock with other melds
    *reply.mutable_action() = *choice.action;
  else  // legal_index is in a oneof, so 0 is still sent (the first action)
    reply.set_legal_index(static_cast<uint32_t>(choice.index));
  return reply;
}

class BotService final : public pb::Bot::Service {
  // Once per connection, after SERVING. We refuse a protocol version we do not speak.
  grpc::Status Handshake(grpc::ServerContext*, const pb::HandshakeRequest* request,
                         pb::HandshakeReply* reply) override {
    if (request->protocol_version() != kProtocolVersion) {
      Log("handshake refused: referee " + request->referee() + " speaks protocol " +
          std::to_string(request->protocol_version()));
      return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                          "protocol version mismatch: the referee speaks version " +
                              std::to_string(request->protocol_version()) + ", this bot speaks version " +
                              std::to_string(kProtocolVersion));
    }
    Log("handshake with " + request->referee());
    reply->set_name(kName);
    reply->set_author(kAuthor);
    reply->set_version(kVersion);
    reply->set_protocol_version(kProtocolVersion);
    reply->add_games(kGames);
    return grpc::Status::OK;
  }

  // One bidirectional stream per match. We answer each DecisionRequest with exactly
  // one DecisionReply carrying its request_id, and write nothing else. The referee
  // closes its side after MatchEnd: Read then returns false.
  grpc::Status PlayMatch(grpc::ServerContext*,
                         grpc::ServerReaderWriter<pb::BotMessage, pb::RefereeMessage>* stream) override {
    pb::RefereeMessage message;
    int seat = -1;
    while (stream->Read(&message)) {
      switch (message.body_case()) {
        case pb::RefereeMessage::kMatchStart: {
          const auto& start = message.match_start();
          seat = static_cast<int>(start.seat());
          Log("match " + start.match_id() + ": " + start.game_id() + ", seat " + std::to_string(seat) + " of " +
              Joined(start.players(), " vs ") + ", " + std::to_string(start.games()) + " game(s)");
          break;
        }
        case pb::RefereeMessage::kDecision: {
          pb::BotMessage reply;
          *reply.mutable_decision() = ReplyTo(message.decision());
          if (!stream->Write(reply)) {
            Log("cannot send a reply: the stream is closed");
            return grpc::Status::CANCELLED;
          }
          break;
        }
        case pb::RefereeMessage::kHandEnd:
          if (kVerbose) {
            const auto& end = message.hand_end();
            Log("hand " + std::to_string(end.game_number()) + "." + std::to_string(end.hand_number()) + ": " +
                end.termination() + ", winner seat " + std::to_string(end.winner()));
          }
          break;
        case pb::RefereeMessage::kGameEnd: {
          const auto& end = message.game_end();
          const char* outcome = end.winner() == seat ? "won" : end.winner() == -1 ? "drawn" : "lost";
          Log("game " + std::to_string(end.game_number()) + " " + outcome + ": scores " + Joined(end.scores(), "-") +
              " (" + end.reason() + ")");
          break;
        }
        case pb::RefereeMessage::kMatchEnd:
          Log("match over: games won by seat " + Joined(message.match_end().wins(), "-"));
          break;
        case pb::RefereeMessage::kNotice:
          Log("notice from the referee: " + message.notice().text());
          break;
        default:  // game_start, hand_start: nothing to do here
          break;
      }
    }
    return grpc::Status::OK;
  }
};

// The address to listen on: --address ADDR, else $ARENA_BOT_ADDRESS. grpc++ takes
// "unix:/path" and "host:port" as they are; the arena writes TCP as grpc://host:port.
std::string ListenAddress(int argc, char** argv) {
  const char* from_env = std::getenv("ARENA_BOT_ADDRESS");
  std::string address = from_env ? from_env : "";
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--address" && i + 1 < argc) address = argv[++i];
    else if (arg.rfind("--address=", 0) == 0) address = arg.substr(std::strlen("--address="));
  }
  if (address.rfind("grpc://", 0) == 0) address = address.substr(std::strlen("grpc://"));
  return address;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string address = ListenAddress(argc, argv);
  if (address.empty()) {
    Log("no address: set ARENA_BOT_ADDRESS or pass --address unix:/tmp/cpp.sock (or grpc://127.0.0.1:50051)");
    return 2;
  }
  std::string socket_path;
  if (address.rfind("unix:", 0) == 0) {
    socket_path = address.substr(std::strlen("unix:"));
    // A socket left by an earlier run you started yourself would block the bind.
    struct stat info {};
    if (stat(socket_path.c_str(), &info) == 0 && S_ISSOCK(info.st_mode)) unlink(socket_path.c_str());
  }

  // SIGTERM (the arena stops a bot with it, then SIGKILL) and SIGINT (Ctrl-C) are
  // blocked in every thread and taken by one thread with sigwait, which may then
  // safely shut the server down.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  grpc::EnableDefaultHealthCheckService(true);  // answers Check and Watch
  BotService service;
  grpc::ServerBuilder builder;
  int bound = 0;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &bound);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || (socket_path.empty() && bound == 0)) {
    Log("cannot listen on " + address);
    return 1;
  }
  server->GetHealthCheckService()->SetServingStatus("rummy_arena.v1.Bot", true);
  Log("serving on " + address + " (grpc " + grpc::Version() + ", pid " + std::to_string(getpid()) + ")");

  std::thread stopper([&server, &stop_signals] {
    int received = 0;
    sigwait(&stop_signals, &received);
    Log(std::string(received == SIGTERM ? "SIGTERM" : "SIGINT") + ": shutting down");
    server->Shutdown(std::chrono::system_clock::now());  // cancels any open match stream
  });
  server->Wait();
  stopper.join();
  if (!socket_path.empty()) unlink(socket_path.c_str());
  return 0;
}
