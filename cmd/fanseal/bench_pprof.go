package main

import (
	"fmt"
	"html"
	"net"
	"net/http"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"
)

// startPprof serves live profiles on addr from a dedicated ServeMux. It
// refuses an address that is not loopback unless public is set. It does
// not use net/http/pprof, whose import alone registers its handlers on
// http.DefaultServeMux: nothing fanseal serves exposes profiles unless
// --pprof asked for them, and then only on this listener.
func startPprof(addr string, public bool) (*http.Server, string, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, "", fmt.Errorf("%w: --pprof %q: %v", errUsage, addr, err)
	}
	if !public && !isLoopback(host) {
		return nil, "", fmt.Errorf("%w: --pprof %q is not a loopback address; profiles reveal memory contents, so add --pprof-public only if you mean it", errUsage, addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", err
	}
	srv := &http.Server{Handler: pprofMux(), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	return srv, ln.Addr().String(), nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// pprofMux serves runtime/pprof's profiles in the format go tool pprof
// reads: /debug/pprof/ lists them, /debug/pprof/NAME returns one (debug=1
// for text), /debug/pprof/profile?seconds=N records the CPU.
func pprofMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /debug/pprof/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<html><body><h1>fanseal profiles</h1><ul>\n")
		fmt.Fprint(w, `<li><a href="profile?seconds=10">profile</a> (CPU, 10 s)</li>`+"\n")
		for _, p := range pprof.Profiles() {
			fmt.Fprintf(w, "<li><a href=\"%s?debug=1\">%s</a> (%d)</li>\n", html.EscapeString(p.Name()), html.EscapeString(p.Name()), p.Count())
		}
		fmt.Fprint(w, "</ul></body></html>\n")
	})
	mux.HandleFunc("GET /debug/pprof/profile", func(w http.ResponseWriter, r *http.Request) {
		secs, err := strconv.Atoi(r.FormValue("seconds"))
		if err != nil || secs <= 0 || secs > 300 {
			secs = 10
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		if err := pprof.StartCPUProfile(w); err != nil {
			http.Error(w, "CPU profile already running: "+err.Error(), http.StatusConflict)
			return
		}
		select {
		case <-time.After(time.Duration(secs) * time.Second):
		case <-r.Context().Done():
		}
		pprof.StopCPUProfile()
	})
	mux.HandleFunc("GET /debug/pprof/{name}", func(w http.ResponseWriter, r *http.Request) {
		p := pprof.Lookup(strings.TrimSpace(r.PathValue("name")))
		if p == nil {
			http.NotFound(w, r)
			return
		}
		debug, _ := strconv.Atoi(r.FormValue("debug"))
		if debug > 0 {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		} else {
			w.Header().Set("Content-Type", "application/octet-stream")
		}
		p.WriteTo(w, debug)
	})
	return mux
}
