// Rummy Arena starter bot in Go.
//
// A bot is a gRPC server; the arena's referee is its client (docs/PROTOCOL.md).
// This file is the plumbing. It serves
//
//	grpc.health.v1.Health/Check   SERVING once we listen (the arena polls it),
//	rummy_arena.v1.Bot/Handshake  who we are and which protocol we speak,
//	rummy_arena.v1.Bot/PlayMatch  one stream per match: a reply to every decision,
//
// and hands each decision to strategy.go, which is where the playing happens.
//
// Usage:
//
//	ARENA_BOT_ADDRESS=unix:/tmp/go.sock ./bot   (what the arena does)
//	./bot --address unix:/tmp/go.sock           (you, e.g. under a debugger)
//	./bot --address grpc://127.0.0.1:50051      (TCP; "127.0.0.1:50051" works too)
//
// Everything we log goes to stderr: the arena keeps it in a file next to the replay.
// Set GO_BOT_VERBOSE=1 (e.g. in the manifest's [env] table) to log every decision.
package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"log"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	pb "rummyarena/botpb"
)

const protocolVersion = 1 // the protocol this bot speaks (bot.proto, "version 1")

// Who we are. Change Name here and `name` in bot.toml to make the bot yours.
var info = pb.HandshakeReply{
	Name:            "go-starter", // letters, digits, "-", "_", "."
	Author:          "Rummy Arena starter kit",
	Version:         "1.0.0",
	ProtocolVersion: protocolVersion,
	Games:           []string{"gin-rummy/*"}, // every Gin Rummy rule set
}

var verbose = os.Getenv("GO_BOT_VERBOSE") == "1"

type botServer struct {
	pb.UnimplementedBotServer
}

// Handshake comes once per connection, after SERVING. We refuse a protocol
// version we do not speak.
func (botServer) Handshake(_ context.Context, request *pb.HandshakeRequest) (*pb.HandshakeReply, error) {
	if request.ProtocolVersion != protocolVersion {
		log.Printf("handshake refused: referee %q speaks protocol %d", request.Referee, request.ProtocolVersion)
		return nil, status.Errorf(codes.FailedPrecondition,
			"protocol version mismatch: the referee speaks version %d, this bot speaks version %d",
			request.ProtocolVersion, protocolVersion)
	}
	log.Printf("handshake with %s", request.Referee)
	reply := pb.HandshakeReply{
		Name: info.Name, Author: info.Author, Version: info.Version,
		ProtocolVersion: info.ProtocolVersion, Games: info.Games,
	}
	return &reply, nil
}

// PlayMatch is one bidirectional stream per match. We answer each DecisionRequest
// with exactly one DecisionReply carrying its request_id, and send nothing else.
// The referee closes its side after MatchEnd: Recv then returns io.EOF.
func (botServer) PlayMatch(stream pb.Bot_PlayMatchServer) error {
	var seat int32 = -1
	for {
		message, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			log.Printf("match stream error: %v", err)
			return err
		}
		switch body := message.Body.(type) {
		case *pb.RefereeMessage_MatchStart:
			start := body.MatchStart
			seat = int32(start.Seat)
			log.Printf("match %s: %s, seat %d of %s, %d game(s)",
				start.MatchId, start.GameId, seat, strings.Join(start.Players, " vs "), start.Games)
		case *pb.RefereeMessage_Decision:
			reply := &pb.BotMessage{Body: &pb.BotMessage_Decision{Decision: replyTo(body.Decision)}}
			if err := stream.Send(reply); err != nil {
				log.Printf("cannot send a reply: %v", err)
				return err
			}
		case *pb.RefereeMessage_HandEnd:
			if verbose {
				end := body.HandEnd
				log.Printf("hand %d.%d: %s, winner seat %d", end.GameNumber, end.HandNumber, end.Termination, end.Winner)
			}
		case *pb.RefereeMessage_GameEnd:
			end := body.GameEnd
			outcome := "lost"
			if end.Winner == seat {
				outcome = "won"
			} else if end.Winner == -1 {
				outcome = "drawn"
			}
			log.Printf("game %d %s: scores %v (%s)", end.GameNumber, outcome, end.Scores, end.Reason)
		case *pb.RefereeMessage_MatchEnd:
			log.Printf("match over: games won by seat %v", body.MatchEnd.Wins)
		case *pb.RefereeMessage_Notice:
			log.Printf("notice from the referee: %s", body.Notice.Text)
		default: // GameStart, HandStart: nothing to do here
		}
	}
}

// replyTo builds the DecisionReply for one DecisionRequest; it never panics.
func replyTo(request *pb.DecisionRequest) *pb.DecisionReply {
	choice := safeDecide(request)
	if verbose {
		log.Printf("request %d %s: #%d %s", request.RequestId, request.Observation.GetPhase(), choice.Index, choice.Comment)
	}
	reply := &pb.DecisionReply{RequestId: request.RequestId, Comment: choice.Comment}
	if choice.Action != nil { // an action of our own, e.g. a knock with other melds
		reply.Choice = &pb.DecisionReply_Action{Action: choice.Action}
	} else { // legal_index is in a oneof, so 0 is still sent (the first action)
		reply.Choice = &pb.DecisionReply_LegalIndex{LegalIndex: uint32(choice.Index)}
	}
	return reply
}

// safeDecide calls Decide; a bug in the strategy must not cost the game, so a
// panic plays the first legal action instead.
func safeDecide(request *pb.DecisionRequest) (choice Choice) {
	defer func() {
		if failure := recover(); failure != nil {
			log.Printf("strategy failed, playing legal action 0: %v\n%s", failure, debug.Stack())
			choice = Choice{}
		}
	}()
	return Decide(request)
}

// listen opens the address the arena gave: "unix:/abs/path.sock" (grpc-go's
// net.Listen wants the bare path), "grpc://host:port" or "host:port".
func listen(address string) (net.Listener, error) {
	if strings.HasPrefix(address, "unix:") {
		path := strings.TrimPrefix(strings.TrimPrefix(address, "unix:"), "//") // unix:///abs/path too
		// A socket left by an earlier run you started yourself would block the bind.
		if stat, err := os.Stat(path); err == nil && stat.Mode()&os.ModeSocket != 0 {
			os.Remove(path)
		}
		return net.Listen("unix", path)
	}
	return net.Listen("tcp", strings.TrimPrefix(address, "grpc://"))
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("[" + info.Name + "] ")
	address := flag.String("address", os.Getenv("ARENA_BOT_ADDRESS"),
		"where to listen: unix:/tmp/go.sock or grpc://127.0.0.1:50051 (default $ARENA_BOT_ADDRESS)")
	flag.Parse()
	if *address == "" {
		log.Print("no address: set ARENA_BOT_ADDRESS or pass --address unix:/tmp/go.sock (or grpc://127.0.0.1:50051)")
		os.Exit(2)
	}
	listener, err := listen(*address)
	if err != nil {
		log.Printf("cannot listen on %s: %v", *address, err)
		os.Exit(1)
	}

	server := grpc.NewServer()
	healthServer := health.NewServer() // answers Check and Watch; SERVING for ""
	healthServer.SetServingStatus("rummy_arena.v1.Bot", healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(server, healthServer)
	pb.RegisterBotServer(server, botServer{})

	// The arena stops a bot with SIGTERM (then SIGKILL); Ctrl-C sends SIGINT.
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		received := <-signals
		name := map[os.Signal]string{syscall.SIGTERM: "SIGTERM", syscall.SIGINT: "SIGINT"}[received]
		log.Printf("%s: shutting down", name)
		server.Stop() // closes the listener (and removes its socket) and any open stream
		os.Exit(0)
	}()

	log.Printf("serving on %s (%s, pid %d)", *address, goVersion(), os.Getpid())
	if err := server.Serve(listener); err != nil {
		log.Printf("server stopped: %v", err)
		os.Exit(1)
	}
}

func goVersion() string {
	if build, ok := debug.ReadBuildInfo(); ok {
		return build.GoVersion
	}
	return "go"
}
