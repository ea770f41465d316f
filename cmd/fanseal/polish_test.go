package main

import (
	"strings"
	"testing"
)

// TestInspectCountsChunks: a one-chunk payload is "1 chunk", two are
// "2 chunks".
func TestInspectCountsChunks(t *testing.T) {
	_, _, pubs := setup(t, "x25519", 1)
	for _, c := range []struct {
		size int
		want string
	}{{10, " in 1 chunk "}, {100 << 10, " in 2 chunks "}} {
		env := mustRun(t, strings.Repeat("x", c.size), "encrypt", "-r", pubs[0])
		if out := mustRun(t, env, "inspect"); !strings.Contains(out, c.want) {
			t.Errorf("%d bytes: inspect says\n%s", c.size, out)
		}
	}
}

// TestUnknownFlagAsTyped: an unknown flag is named as the user typed it,
// with one dash or two.
func TestUnknownFlagAsTyped(t *testing.T) {
	for _, flag := range []string{"--bogus", "-bogus", "--bogus=1"} {
		status, _, stderr := cli(t, "", "encrypt", flag)
		want := strings.TrimSuffix(flag, "=1")
		if status != 1 || !strings.Contains(stderr, "not defined: "+want+"\n") {
			t.Errorf("%s: status %d, stderr %q", flag, status, stderr)
		}
	}
}
