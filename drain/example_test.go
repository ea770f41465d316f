package drain_test

import (
	"context"
	"fmt"
	"net"
	"strings"

	"github.com/fanseal/fanseal/drain"
	"github.com/fanseal/fanseal/internal/frame"
)

// Producers submit responses; one goroutine sends them. A lone item goes
// out at once, in a batch of its own.
func Example() {
	send := func(ctx context.Context, responses []string) error {
		fmt.Println("send", strings.Join(responses, " "))
		return nil
	}
	b := drain.New(send, drain.Options[string]{MaxItems: 64})
	defer b.Close()
	for _, r := range []string{"confirm-1", "confirm-2"} {
		if err := b.Submit(context.Background(), r); err != nil {
			fmt.Println(err)
		}
	}
	// Output:
	// send confirm-1
	// send confirm-2
}

// A send function that owns a TCP connection: after an error it drops the
// connection and dials again on its next call. The error reaches the items
// of the failed batch, which their producers resubmit.
func Example_resend() {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	defer ln.Close()
	go func() {
		first := true
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if first { // the receiver drops its first connection
				first = false
				c.Close()
				continue
			}
			go func() {
				defer c.Close()
				frame.Serve(c, func([]byte) {})
			}()
		}
	}()

	var conn net.Conn
	var client *frame.Client
	send := func(ctx context.Context, items [][]byte) error {
		if conn == nil {
			var err error
			if conn, err = net.Dial("tcp", ln.Addr().String()); err != nil {
				return err
			}
			client = frame.NewClient(conn)
		}
		err := client.Send(ctx, items)
		if err != nil {
			conn.Close()
			conn = nil
		}
		return err
	}
	b := drain.New(send, drain.Options[[]byte]{})
	for _, r := range []string{"confirm-1", "confirm-2"} {
		for try := 1; ; try++ {
			err := b.Submit(context.Background(), []byte(r))
			if err == nil {
				fmt.Printf("%s delivered on try %d\n", r, try)
				break
			}
		}
	}
	b.Close()
	conn.Close()
	// Output:
	// confirm-1 delivered on try 2
	// confirm-2 delivered on try 1
}
