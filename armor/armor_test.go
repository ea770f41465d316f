package armor

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/fanseal/fanseal/internal/errs"
)

func armor(t testing.TB, b []byte) string {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestRoundTrip(t *testing.T) {
	for _, n := range []int{1, 2, 3, 47, 48, 49, 96, 1000, 100000} {
		b := make([]byte, n)
		rand.Read(b)
		a := armor(t, b)
		if !strings.HasPrefix(a, Header+"\n") || !strings.HasSuffix(a, Footer+"\n") {
			t.Fatalf("n=%d: framing %q", n, a)
		}
		for _, l := range strings.Split(strings.TrimSuffix(a, "\n"), "\n") {
			if len(l) > 64 {
				t.Fatalf("line of %d columns", len(l))
			}
		}
		if !IsArmored([]byte(a)) {
			t.Fatal("IsArmored is false")
		}
		got, err := io.ReadAll(NewReader(strings.NewReader(a)))
		if err != nil || !bytes.Equal(got, b) {
			t.Fatalf("n=%d: decode = %d bytes, %v", n, len(got), err)
		}
		crlf := strings.ReplaceAll(a, "\n", "\r\n") + "\n  \n"
		if got, err := io.ReadAll(NewReader(strings.NewReader(crlf))); err != nil || !bytes.Equal(got, b) {
			t.Fatalf("n=%d: CRLF decode: %v", n, err)
		}
	}
}

func TestStrict(t *testing.T) {
	good := armor(t, bytes.Repeat([]byte{0xab}, 100))
	lines := strings.Split(good, "\n")
	join := func(l []string) string { return strings.Join(l, "\n") }
	for name, bad := range map[string]string{
		"empty":           "",
		"no-footer":       join(lines[:3]) + "\n",
		"no-final-eol":    strings.TrimSuffix(good, "\n"),
		"garbage-after":   good + "junk\n",
		"blank-line":      join(append([]string{lines[0], ""}, lines[1:]...)),
		"header-typo":     strings.Replace(good, "BEGIN", "BEGlN", 1),
		"short-middle":    join([]string{lines[0], lines[1][:60], lines[2], lines[3], lines[4]}),
		"long-line":       join([]string{lines[0], lines[1] + "AAAA", lines[2], lines[3], lines[4]}),
		"non-canonical":   strings.Replace(good, lines[2], lines[2][:len(lines[2])-3]+"r==", 1),
		"bad-char":        strings.Replace(good, lines[1], "*"+lines[1][1:], 1),
		"only-framing":    Header + "\n" + Footer + "\n",
		"data-after-pad":  join([]string{lines[0], lines[1], lines[2], lines[1], lines[3], lines[4]}),
		"space-in-line":   strings.Replace(good, lines[1], " "+lines[1][1:], 1),
		"lowercase-armor": strings.ToLower(good),
	} {
		_, err := io.ReadAll(NewReader(strings.NewReader(bad)))
		if !errors.Is(err, errs.Malformed) && !errors.Is(err, errs.Truncated) {
			t.Errorf("%s: error = %v", name, err)
		}
	}
}

func FuzzReader(f *testing.F) {
	f.Add(armor(f, []byte("hello")))
	f.Add(armor(f, bytes.Repeat([]byte{1}, 200)))
	f.Fuzz(func(t *testing.T, s string) {
		b, err := io.ReadAll(NewReader(strings.NewReader(s)))
		if err != nil {
			if !errors.Is(err, errs.Malformed) && !errors.Is(err, errs.Truncated) {
				t.Fatalf("undocumented error %v", err)
			}
			return
		}
		// Strict decoding: whatever decodes is the canonical armor of its
		// bytes, up to line endings and trailing whitespace.
		canon := strings.TrimRight(strings.ReplaceAll(s, "\r\n", "\n"), " \t\r\n") + "\n"
		if armor(t, b) != canon {
			t.Fatalf("accepted non-canonical armor %q", s)
		}
	})
}
