// The bare gRPC baseline in Go (bench_cold_ladder.py builds it beside the Go kit's
// generated code): the health check and the handshake answered at once, every
// decision with index 0.
package main

import (
	"context"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	pb "rummyarena/botpb"
)

type bare struct {
	pb.UnimplementedBotServer
}

func (bare) Handshake(context.Context, *pb.HandshakeRequest) (*pb.HandshakeReply, error) {
	return &pb.HandshakeReply{Name: "bare", ProtocolVersion: 1}, nil
}

func (bare) PlayMatch(stream pb.Bot_PlayMatchServer) error {
	for {
		message, err := stream.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if request := message.GetDecision(); request != nil {
			reply := &pb.DecisionReply{RequestId: request.RequestId, Choice: &pb.DecisionReply_LegalIndex{LegalIndex: 0}}
			if err := stream.Send(&pb.BotMessage{Body: &pb.BotMessage_Decision{Decision: reply}}); err != nil {
				return err
			}
		}
	}
}

func main() {
	listener, err := net.Listen("unix", strings.TrimPrefix(os.Getenv("ARENA_BOT_ADDRESS"), "unix:"))
	if err != nil {
		panic(err)
	}
	server := grpc.NewServer()
	healthpb.RegisterHealthServer(server, health.NewServer())
	pb.RegisterBotServer(server, bare{})
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM)
	go func() { <-stop; server.Stop() }()
	_ = server.Serve(listener)
}
