package armor

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"slices"
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
		"garbage-after":   good + "junk\n",
		"blank-line":      join(append([]string{lines[0], ""}, lines[1:]...)),
		"header-typo":     strings.Replace(good, "BEGIN", "BEGlN", 1),
		"short-middle":    join([]string{lines[0], lines[1][:60], lines[2], lines[3], lines[4]}),
		"long-line":       join([]string{lines[0], lines[1] + "AAAA", lines[2], lines[3], lines[4]}),
		"non-canonical":   strings.Replace(good, lines[2], lines[2][:len(lines[2])-3]+"r==", 1),
		"bad-char":        strings.Replace(good, lines[1], "*"+lines[1][1:], 1),
		"space-in-line":   strings.Replace(good, lines[1], " "+lines[1][1:], 1),
		"lowercase-armor": strings.ToLower(good),
	} {
		_, err := io.ReadAll(NewReader(strings.NewReader(bad)))
		if !errors.Is(err, errs.Malformed) && !errors.Is(err, errs.Truncated) {
			t.Errorf("%s: error = %v", name, err)
		}
	}
}

// TestOneText: an envelope has one armored text, up to what an editor
// adds around it (TestTolerated). A carriage return inside a line is
// refused, although the base64 decoder would skip it: a line of 60
// characters and 4 CRs, a line of CRs alone, CRs doubled at a line end.
func TestOneText(t *testing.T) {
	good := armor(t, bytes.Repeat([]byte{0xab}, 100))
	lines := strings.Split(strings.TrimSuffix(good, "\n"), "\n")
	join := func(l []string) string { return strings.Join(l, "\n") + "\n" }
	with := func(i int, l string) string {
		ls := slices.Clone(lines)
		ls[i] = l
		return join(ls)
	}
	// The same bytes in lines of 60 characters, each with 4 CRs inside:
	// 64 columns.
	b64 := strings.Join(lines[1:len(lines)-1], "")
	var crs []string
	for len(b64) > 60 {
		crs = append(crs, b64[:30]+"\r\r\r\r"+b64[30:60])
		b64 = b64[60:]
	}
	rewrapped := join(slices.Concat([]string{Header}, crs, []string{b64, Footer}))
	// 96 bytes end in a full line; a line of 64 CRs (and its CRLF) then
	// decodes to nothing.
	full := strings.Split(strings.TrimSuffix(armor(t, bytes.Repeat([]byte{0xab}, 96)), "\n"), "\n")
	for name, bad := range map[string]string{
		"60 characters and 4 CRs":       rewrapped,
		"a line of 64 CRs before end":   join(slices.Insert(full, 3, strings.Repeat("\r", 65))),
		"60 characters, 4 CRs at start": with(1, "\r\r\r\r"+lines[1][:60]),
		"a CR in the last line":         with(3, lines[3][:4]+"\r"+lines[3][4:]),
		"a line of CRs":                 join(slices.Insert(slices.Clone(lines), 2, "\r\r\r")),
		"a line of one CR":              join(slices.Insert(slices.Clone(lines), 2, "\r")),
		"CR CR LF":                      strings.ReplaceAll(good, "\n", "\r\r\n"),
		"trailing space":                with(1, lines[1]+" "),
		"trailing space, end":           with(4, lines[4]+" "),
		"space before begin":            with(0, " "+lines[0]),
		"1024 bytes after end":          good + strings.Repeat(" ", 1024),
		"1025 bytes before begin":       strings.Repeat(" ", 1024) + "\n" + good,
		"text before begin":             "Hello\n" + good,
	} {
		got, err := io.ReadAll(NewReader(strings.NewReader(bad)))
		if !errors.Is(err, errs.Malformed) {
			t.Errorf("%s: %d bytes, %v; want ErrMalformed", name, len(got), err)
		}
	}
}

// TestTolerated: what a person's editor adds, and age's armor reader
// accepts, decodes to the same bytes (docs/FORMAT.md, "Text forms").
func TestTolerated(t *testing.T) {
	data := bytes.Repeat([]byte{0xab}, 100)
	good := armor(t, data)
	for name, variant := range map[string]string{
		"a blank line before":          "\n" + good,
		"blank lines before":           "\n\r\n\n" + good,
		"white space lines before":     " \t\n\u00a0\n\v\f\r\n" + good,
		"1024 bytes of lines before":   strings.Repeat(" ", 1023) + "\n" + good,
		"CRLF":                         strings.ReplaceAll(good, "\n", "\r\n"),
		"CRLF on some lines":           strings.Replace(good, "\n", "\r\n", 2),
		"no line end after the end":    strings.TrimSuffix(good, "\n"),
		"CR and no LF after the end":   strings.TrimSuffix(good, "\n") + "\r",
		"white space after the end":    good + " \t\n\n\r\n",
		"1023 bytes after the end":     good + strings.Repeat("\n", 1023),
		"white space around, and CRLF": "\r\n" + strings.ReplaceAll(good, "\n", "\r\n") + "\r\n \r\n",
	} {
		got, err := io.ReadAll(NewReader(strings.NewReader(variant)))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s: %d bytes, %v", name, len(got), err)
		}
		if !IsArmored([]byte(variant)) {
			t.Errorf("%s: IsArmored is false", name)
		}
	}
	if got, err := io.ReadAll(NewReader(strings.NewReader(Header + "\n" + Footer + "\n"))); err != nil || len(got) != 0 {
		t.Errorf("an empty armor: %d bytes, %v; want none (the envelope reader says truncated)", len(got), err)
	}
	for _, not := range []string{"", "\n", " " + Header, strings.Repeat(" ", 1024) + "\n" + Header, "FANSEAL"} {
		if IsArmored([]byte(not)) {
			t.Errorf("IsArmored(%.40q) is true", not)
		}
	}
}

// TestDetectSize: IsArmored, given the first DetectSize bytes of an input,
// recognises every armored text a Reader decodes, up to the most white
// space it skips before the begin line, which spans 2 048 bytes as 1 024
// lines of CRLF alone (a CR before a LF is not counted); one line more,
// and the Reader refuses the input, and IsArmored says it is not armor.
func TestDetectSize(t *testing.T) {
	data := bytes.Repeat([]byte{0xab}, 100)
	good := armor(t, data)
	for _, c := range []struct {
		before string
		ok     bool
	}{
		{strings.Repeat("\r\n", 1024), true},
		{strings.Repeat(" \r\n", 512), true},
		{strings.Repeat(" ", 1023) + "\r\n", true},
		{strings.Repeat("\r\n", 1025), false},
		{strings.Repeat(" \r\n", 513), false},
	} {
		in := []byte(c.before + good)
		got, err := io.ReadAll(NewReader(bytes.NewReader(in)))
		if (err == nil && bytes.Equal(got, data)) != c.ok {
			t.Errorf("%d bytes of white space before: %d bytes, %v", len(c.before), len(got), err)
		}
		if IsArmored(in[:min(len(in), DetectSize)]) != c.ok {
			t.Errorf("%d bytes of white space before: IsArmored of the first DetectSize bytes is %v", len(c.before), !c.ok)
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
		if in := []byte(s); !IsArmored(in[:min(len(in), DetectSize)]) {
			t.Fatalf("decoded armor that IsArmored does not recognise: %q", s)
		}
		// Strict decoding: whatever decodes is the canonical armor of its
		// bytes, up to CRs before line ends and white space before the
		// begin line and after the end line.
		text := strings.ReplaceAll(s, "\r\n", "\n")
		text = text[strings.Index(text, Header):]
		text = text[:strings.LastIndex(text, Footer)+len(Footer)] + "\n"
		if armor(t, b) != text {
			t.Fatalf("accepted non-canonical armor %q", s)
		}
	})
}
