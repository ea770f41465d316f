package peers

import (
	"bytes"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	agearmor "filippo.io/age/armor"

	"github.com/fanseal/fanseal/armor"
)

// asAge turns fanseal armor into age's: the same text between age's begin
// and end lines.
func asAge(s string) string {
	s = strings.ReplaceAll(s, armor.Header, agearmor.Header)
	return strings.ReplaceAll(s, armor.Footer, agearmor.Footer)
}

// sameAsAge reports what differs between fanseal's armor reader on s and
// age's on the same text in age's framing: both refuse it, or both
// decode it to the same bytes.
func sameAsAge(s string) (string, bool) {
	got, err := io.ReadAll(armor.NewReader(strings.NewReader(s)))
	want, ageErr := io.ReadAll(agearmor.NewReader(strings.NewReader(asAge(s))))
	switch {
	case (err == nil) != (ageErr == nil):
		return "fanseal: " + errString(err) + "; age: " + errString(ageErr), false
	case err == nil && !bytes.Equal(got, want):
		return "both decode it, to different bytes", false
	}
	return "", true
}

func errString(err error) string {
	if err == nil {
		return "decoded"
	}
	return err.Error()
}

func fansealArmor(t testing.TB, n int) string {
	var b strings.Builder
	w := armor.NewWriter(&b)
	w.Write(bytes.Repeat([]byte{0xab, 0x01, 0xfe}, n/3+1)[:n])
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestArmorMatchesAge: fanseal's armor reader tolerates exactly what age's
// does (docs/FORMAT.md, "Text forms"): around texts of several lengths,
// each edit an editor or an attacker might make, and random ones, get the
// same verdict from both readers.
func TestArmorMatchesAge(t *testing.T) {
	var texts []string
	for _, n := range []int{0, 1, 47, 48, 49, 96, 100, 1000} {
		texts = append(texts, fansealArmor(t, n))
	}
	edits := map[string]func(string) string{
		"as written":                 func(s string) string { return s },
		"CRLF":                       func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") },
		"CR CR LF":                   func(s string) string { return strings.ReplaceAll(s, "\n", "\r\r\n") },
		"a blank line before":        func(s string) string { return "\n" + s },
		"white space lines before":   func(s string) string { return " \t\n\u00a0\r\n\v\n" + s },
		"1023 bytes before":          func(s string) string { return strings.Repeat(" ", 1022) + "\n" + s },
		"1024 bytes before":          func(s string) string { return strings.Repeat(" ", 1023) + "\n" + s },
		"1025 bytes before":          func(s string) string { return strings.Repeat(" ", 1024) + "\n" + s },
		"5000 bytes before":          func(s string) string { return strings.Repeat(" ", 5000) + "\n" + s },
		"text before":                func(s string) string { return "hello\n" + s },
		"space before begin":         func(s string) string { return " " + s },
		"no line end at the end":     func(s string) string { return strings.TrimSuffix(s, "\n") },
		"CR at the end":              func(s string) string { return strings.TrimSuffix(s, "\n") + "\r" },
		"white space after":          func(s string) string { return s + " \t\n\r\n\n" },
		"1023 bytes after":           func(s string) string { return s + strings.Repeat(" ", 1023) },
		"1024 bytes after":           func(s string) string { return s + strings.Repeat(" ", 1024) },
		"text after":                 func(s string) string { return s + "x\n" },
		"second end line":            func(s string) string { return s + armor.Footer + "\n" },
		"no end line":                func(s string) string { return strings.Replace(s, armor.Footer+"\n", "", 1) },
		"trailing space on a line":   func(s string) string { return strings.Replace(s, "\n", " \n", 2) },
		"trailing space on the end":  func(s string) string { return strings.Replace(s, armor.Footer, armor.Footer+" ", 1) },
		"a CR inside the first line": func(s string) string { return strings.Replace(s, "\n", "\n\r", 1) },
		"a blank line inside":        func(s string) string { return strings.Replace(s, "\n", "\n\n", 2) },
		"padding removed":            func(s string) string { return strings.ReplaceAll(s, "=", "") },
		"lower case":                 strings.ToLower,
		"cut inside the begin line":  func(s string) string { return s[:20] },
		"cut after the begin line":   func(s string) string { return s[:len(armor.Header)] },
		"cut inside the end line":    func(s string) string { return s[:strings.LastIndex(s, armor.Footer)+16] },
		"CRLF lines before":          func(s string) string { return strings.Repeat("\r\n", 1024) + s },
		"too many CRLF lines before": func(s string) string { return strings.Repeat("\r\n", 1025) + s },
	}
	for _, text := range texts {
		for name, edit := range edits {
			if why, ok := sameAsAge(edit(text)); !ok {
				t.Errorf("%d-byte armor, %s: %s", len(text), name, why)
			}
		}
	}
	r := rand.New(rand.NewPCG(17, 13))
	alphabet := []string{"\r", "\n", " ", "\t", "A", "=", "-", "\u00a0", "\x00"}
	for range 5000 {
		s := texts[r.IntN(len(texts))]
		for range 1 + r.IntN(3) {
			i := r.IntN(len(s) + 1)
			switch r.IntN(3) {
			case 0:
				s = s[:i] + alphabet[r.IntN(len(alphabet))] + s[i:]
			case 1:
				if i < len(s) {
					s = s[:i] + s[i+1:]
				}
			default:
				s = s[:i] + strings.Repeat(alphabet[r.IntN(4)], r.IntN(1100)) + s[i:]
			}
		}
		if why, ok := sameAsAge(s); !ok {
			t.Errorf("%q: %s", s, why)
		}
	}
}

// FuzzArmorMatchesAge: on any input, fanseal's armor reader and age's
// agree.
func FuzzArmorMatchesAge(f *testing.F) {
	f.Add(fansealArmor(f, 100))
	f.Add("\r\n" + strings.ReplaceAll(fansealArmor(f, 48), "\n", "\r\n") + " \n")
	f.Fuzz(func(t *testing.T, s string) {
		if strings.Contains(s, agearmor.Header) || strings.Contains(s, agearmor.Footer) {
			return // asAge would not be the same text
		}
		if why, ok := sameAsAge(s); !ok {
			t.Fatalf("%q: %s", s, why)
		}
	})
}
