package server

import (
	"context"
	"net"

	"github.com/zlite/zlite"
)

// Dialer returns a function that connects to an in-process server over db (keyspace
// 0; 1 to 15 are new and empty) through net.Pipe: no port, no socket. Its signature
// is go-redis's Options.Dialer:
//
//	rdb := redis.NewClient(&redis.Options{Dialer: server.Dialer(db)})
//
// Each dialed connection is served by one goroutine that ends when the client
// closes the connection (rdb.Close()), so nothing outlives the client.
func Dialer(db *zlite.DB) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return New(WithDB(0, db)).Dialer()
}

// Dialer returns a go-redis Options.Dialer connecting to s in-process through
// net.Pipe; see the package function [Dialer].
func (s *Server) Dialer() func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		client, srv := net.Pipe()
		s.ServeConn(srv)
		return client, nil
	}
}
