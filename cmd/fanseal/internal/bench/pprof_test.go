package bench

import (
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
)

// get requests path from the server at addr with the given Host header
// and returns the status.
func get(t *testing.T, addr, host string) int {
	t.Helper()
	req, err := http.NewRequest("GET", "http://"+addr+"/debug/pprof/goroutine?debug=1", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestPprofHostHeader: a page whose name was rebound to 127.0.0.1 sends
// its own name in Host and is refused; the server's own names pass.
func TestPprofHostHeader(t *testing.T) {
	srv, addr, err := ServePprof("127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	_, port, _ := net.SplitHostPort(addr)
	for host, want := range map[string]int{
		"127.0.0.1:" + port:                  200,
		"localhost:" + port:                  200,
		"LocalHost:" + port:                  200,
		"[::1]:" + port:                      200,
		"rebind.attacker.example:" + port:    403,
		"127.0.0.1.nip.io:" + port:           403,
		"localhost.attacker.example:" + port: 403,
		"127.0.0.1":                          403,
		"localhost":                          403,
		"127.0.0.1:1":                        403,
		"192.0.2.7:" + port:                  403,
		"[fe80::1%25lo]:" + port:             403,
	} {
		if got := get(t, addr, host); got != want {
			t.Errorf("Host %q: status %d, want %d", host, got, want)
		}
	}
	// With --pprof-public, an IP address in Host passes, a name still not.
	pub, paddr, err := ServePprof("127.0.0.1:0", true)
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Close()
	_, pport, _ := net.SplitHostPort(paddr)
	if got := get(t, paddr, "192.0.2.7:"+pport); got != 200 {
		t.Errorf("public, IP Host: %d", got)
	}
	if got := get(t, paddr, "rebind.attacker.example:"+pport); got != 403 {
		t.Errorf("public, rebound name: %d", got)
	}
}

// TestPprofLocalhost: "localhost" is resolved by fanseal, refused if any
// address is not loopback, and bound by address.
func TestPprofLocalhost(t *testing.T) {
	real := lookupLocalhost
	defer func() { lookupLocalhost = real }()
	addrs := func(s ...string) func() ([]netip.Addr, error) {
		return func() ([]netip.Addr, error) {
			var out []netip.Addr
			for _, a := range s {
				out = append(out, netip.MustParseAddr(a))
			}
			return out, nil
		}
	}
	for _, c := range []struct {
		name    string
		lookup  func() ([]netip.Addr, error)
		bind    string // "" when refused
		refusal string
	}{
		{"hosts-file-points-elsewhere", addrs("10.1.2.3"), "", "not loopback"},
		{"one-of-two-elsewhere", addrs("127.0.0.1", "192.168.1.20"), "", "not loopback"},
		{"mapped-elsewhere", addrs("::ffff:10.0.0.1"), "", "not loopback"},
		{"none", addrs(), "", "no address"},
		{"error", func() ([]netip.Addr, error) { return nil, errors.New("no resolver") }, "", "no resolver"},
		{"both", addrs("::1", "127.0.0.1"), "127.0.0.1", ""},
		{"other-loopback", addrs("127.0.1.1"), "127.0.1.1", ""},
		{"v6-only", addrs("::1"), "::1", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			lookupLocalhost = c.lookup
			got, err := pprofBindHost("localhost", false)
			if c.bind == "" {
				if err == nil || !strings.Contains(err.Error(), c.refusal) {
					t.Fatalf("bound %q, err %v", got, err)
				}
				if _, _, err := ServePprof("localhost:0", false); err == nil {
					t.Fatal("ServePprof accepted it")
				}
				return
			}
			if err != nil || got != c.bind {
				t.Fatalf("bind %q %v, want %q", got, err, c.bind)
			}
		})
	}
	lookupLocalhost = real
	srv, addr, err := ServePprof("localhost:0", false)
	if err != nil {
		t.Skipf("no loopback here: %v", err)
	}
	defer srv.Close()
	host, _, _ := net.SplitHostPort(addr)
	if ip, err := netip.ParseAddr(host); err != nil || !ip.IsLoopback() {
		t.Fatalf("listening on %s", addr)
	}
	for _, bad := range []string{"", "0.0.0.0", "::", "example.com", "192.0.2.1"} {
		if _, err := pprofBindHost(bad, false); !errors.Is(err, errNotLoopback) {
			t.Errorf("host %q: %v", bad, err)
		}
	}
}
