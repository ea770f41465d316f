package cli

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/fanseal/fanseal"
)

// commentsThen reads as size bytes of comment lines, then tail.
func commentsThen(size int, tail string) io.Reader {
	line := "# " + strings.Repeat("x", 1021) + "\n" // 1 KiB
	return io.MultiReader(io.LimitReader(&repeater{s: line}, int64(size)), strings.NewReader(tail))
}

type repeater struct {
	s string
	i int
}

func (r *repeater) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.s[r.i:])
		n += c
		r.i = (r.i + c) % len(r.s)
	}
	return n, nil
}

// TestKeyFileLimits: the command reads key files as the library does: a
// recipients file past 16 MiB is read to its end (20 MB of 10 000
// post-quantum recipients is legitimate), one past 64 MiB is refused as a
// whole with the file's name and the limit, and an identity file holds at
// most fanseal.MaxIdentities identities.
func TestKeyFileLimits(t *testing.T) {
	_, _, pubs := setup(t, "x25519", 1)
	var got []string
	err := readKeyLines("team.txt", commentsThen(17<<20, pubs[0]+"\n"), "recipients", 0, func(line string, _ keySource) error {
		got = append(got, line)
		return nil
	})
	if err != nil || len(got) != 1 || got[0] != pubs[0] {
		t.Fatalf("a key after 17 MiB of comments: %v, %d keys", err, len(got))
	}
	got = nil
	err = readKeyLines("team.txt", commentsThen(fanseal.MaxKeyFileSize, pubs[0]+"\n"), "recipients", 0, func(line string, _ keySource) error {
		got = append(got, line)
		return nil
	})
	if !errors.Is(err, fanseal.ErrInvalidKey) || !strings.Contains(err.Error(), "team.txt") || !strings.Contains(err.Error(), "64 MiB") || len(got) != 0 {
		t.Fatalf("a file past 64 MiB: %v, %d keys used", err, len(got))
	}

	id, err := fanseal.GenerateIdentity(fanseal.X25519)
	if err != nil {
		t.Fatal(err)
	}
	line := id.String() + "\n"
	if ids, err := readIdentities("me.key", strings.NewReader(strings.Repeat(line, fanseal.MaxIdentities))); err != nil || len(ids) != fanseal.MaxIdentities {
		t.Fatalf("%d identities: %d, %v", fanseal.MaxIdentities, len(ids), err)
	}
	_, err = readIdentities("me.key", bytes.NewReader(bytes.Repeat([]byte(line), fanseal.MaxIdentities+1)))
	if !errors.Is(err, fanseal.ErrInvalidKey) || !strings.Contains(err.Error(), "me.key:1001") {
		t.Fatalf("%d identities: %v", fanseal.MaxIdentities+1, err)
	}
}
