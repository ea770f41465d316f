package bench

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/netip"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"
)

// ServePprof serves live profiles on addr from a dedicated ServeMux. It
// refuses an address that is not loopback unless public is set. It does
// not use net/http/pprof, whose import alone registers its handlers on
// http.DefaultServeMux: nothing fanseal serves exposes profiles unless
// --pprof asked for them, and then only on this listener.
//
// A loopback listener is not enough against a web page in the user's
// browser: with DNS rebinding, a name the attacker controls resolves to
// 127.0.0.1 and the page reads the profiles as same-origin. So every
// request must name the server by its loopback address or localhost, with
// its port, in the Host header; a rebinding page can only send its own
// name. And "localhost" is resolved here, not by the listener: every
// address it resolves to must be loopback, and the listener binds that
// address, not the name.
func ServePprof(addr string, public bool) (*http.Server, string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, "", fmt.Errorf("%w: --pprof %q: %v", ErrAddress, addr, err)
	}
	bind, err := pprofBindHost(host, public)
	if err != nil {
		return nil, "", fmt.Errorf("%w: --pprof %q: %v", ErrAddress, addr, err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(bind, port))
	if err != nil {
		return nil, "", err
	}
	_, port, _ = net.SplitHostPort(ln.Addr().String())
	srv := &http.Server{Handler: checkHost(pprofMux(), host, port, public), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	return srv, ln.Addr().String(), nil
}

// ErrAddress marks a --pprof address that ServePprof refuses.
var ErrAddress = errors.New("refused address")

// errNotLoopback is the reason to refuse a --pprof address without
// --pprof-public.
var errNotLoopback = errors.New("not a loopback address; profiles reveal memory contents, so add --pprof-public only if you mean it")

// lookupLocalhost resolves "localhost"; tests replace it.
var lookupLocalhost = func() ([]netip.Addr, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return net.DefaultResolver.LookupNetIP(ctx, "ip", "localhost")
}

// pprofBindHost returns the host to listen on for the --pprof host: an IP
// address as given, and for "localhost" the loopback address it resolves
// to (127.0.0.1 before ::1), refusing it if it resolves to anything that
// is not loopback. Without public, other names and the empty host (every
// interface) are refused.
func pprofBindHost(host string, public bool) (string, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		if !public && !ip.IsLoopback() {
			return "", errNotLoopback
		}
		return host, nil
	}
	if !strings.EqualFold(host, "localhost") {
		if !public {
			return "", errNotLoopback
		}
		return host, nil
	}
	addrs, err := lookupLocalhost()
	if err != nil {
		return "", fmt.Errorf("resolving localhost: %v", err)
	}
	var v4, v6 netip.Addr
	for _, a := range addrs {
		a = a.Unmap()
		switch {
		case !a.IsLoopback():
			return "", fmt.Errorf("localhost resolves to %s, which is not loopback; give 127.0.0.1 or [::1]", a)
		case a.Is4() && !v4.IsValid():
			v4 = a
		case a.Is6() && !v6.IsValid():
			v6 = a
		}
	}
	if v4.IsValid() {
		return v4.String(), nil
	}
	if v6.IsValid() {
		return v6.String(), nil
	}
	return "", fmt.Errorf("localhost resolves to no address")
}

// checkHost passes on requests whose Host header names this server:
// localhost or a loopback address, with port; with public, also any IP
// address or the host given to --pprof. Anything else, such as a name a
// DNS rebinding attack pointed at this address, gets 403 Forbidden.
func checkHost(next http.Handler, given, port string, public bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, p, err := net.SplitHostPort(r.Host)
		ok := err == nil && p == port
		if ok {
			ip, err := netip.ParseAddr(host)
			isIP := err == nil && ip.Zone() == ""
			ok = strings.EqualFold(host, "localhost") || isIP && ip.IsLoopback() ||
				public && (isIP || strings.EqualFold(host, given))
		}
		if !ok {
			http.Error(w, "fanseal: the Host header must be localhost, 127.0.0.1 or [::1] with the port", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
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
