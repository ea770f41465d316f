package fanseal

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// maxKeyFileSize bounds what ParseIdentities and ParseRecipients read:
// 64 MiB holds MaxRecipients recipients of the longest text
// (mlkem768x25519: 1 975 characters in fanseal's spelling, 1 959 in
// age's), each with a comment line as long, and CRLF line ends. A larger
// file is an error, never read in part.
//
// Memory: the reader holds one line at a time, in a buffer of at most
// maxKeyLine bytes (a longer line is an error), so that reading a file
// costs at most twice that beside the keys it returns, whatever its size.
// The keys take what they take: a recipient at most 5 bytes per byte of
// its line (its parsed public key), so at most 320 MiB for a 64 MiB file;
// an identity at most 1.5 KiB for the classical suites and 18 KiB for
// mlkem768x25519 (its expanded decapsulation key, from a line of 88
// characters), so an identity file holds at most MaxIdentities of them:
// 18 MiB, where 64 MiB of identity lines would take about 13 GiB.
const maxKeyFileSize = 64 << 20

// MaxKeyFileSize is the largest key file ParseIdentities and
// ParseRecipients read: 64 MiB.
const MaxKeyFileSize = maxKeyFileSize

// MaxIdentities is the most identities ParseIdentities reads from one
// file: a file of more is refused, so that reading one takes at most
// 18 MiB whatever it holds.
const MaxIdentities = 1000

// maxKeyLine bounds a line of a key file: 64 KiB.
const maxKeyLine = 64 << 10

// ParseIdentities reads an identity file: one identity per line. White
// space at both ends of a line is ignored, and so are the lines left empty
// and those starting with #. Errors name the line. A file over 64 MiB,
// with a line over 64 KiB or with more than MaxIdentities identities, is
// refused. Beside the identities it returns, it holds at most 128 KiB,
// and each identity takes at most 1.5 KiB (18 KiB for mlkem768x25519).
//
// A file that starts with "-----BEGIN " is an SSH private key, read whole
// (at most 16 KiB) with ParseSSHIdentity.
func ParseIdentities(r io.Reader) ([]*Identity, error) {
	br := bufio.NewReader(r)
	start, _ := br.Peek(64)
	if IsSSHPrivateKey(start) {
		b, err := io.ReadAll(io.LimitReader(br, maxSSHKeySize+1))
		if err != nil {
			return nil, err
		}
		id, err := ParseSSHIdentity(b)
		if err != nil {
			return nil, err
		}
		return []*Identity{id}, nil
	}
	return parseLines(br, "identity", "identity file", MaxIdentities, ParseIdentity)
}

// ParseRecipients reads a recipients file: one recipient per line. White
// space at both ends of a line is ignored, and so are the lines left empty
// and those starting with #. Errors name the line. A file over 64 MiB, or
// with a line over 64 KiB, is refused. Beside the recipients it returns,
// it holds at most 128 KiB, and each recipient takes at most 5 bytes per
// byte of its line.
func ParseRecipients(r io.Reader) ([]*Recipient, error) {
	return parseLines(r, "recipient", "recipients file", 0, ParseRecipient)
}

// A countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// parseLines reads a key file of at most maxKeys keys (0: no limit).
func parseLines[T any](r io.Reader, what, file string, maxKeys int, parse func(string) (T, error)) ([]T, error) {
	// One byte beyond the limit tells a file over it from one that ends
	// exactly at it. The scanner reads ahead, so the count is checked
	// before every line: no line of a file over the limit is used.
	cr := &countingReader{r: io.LimitReader(r, maxKeyFileSize+1)}
	tooLarge := func() error {
		return fmt.Errorf("%w: %s larger than %d bytes (64 MiB), the most fanseal reads", ErrInvalidKey, file, maxKeyFileSize)
	}
	sc := bufio.NewScanner(cr)
	sc.Buffer(make([]byte, 0, 4096), maxKeyLine)
	var out []T
	for n := 1; sc.Scan(); n++ {
		if cr.n > maxKeyFileSize {
			return nil, tooLarge()
		}
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if maxKeys > 0 && len(out) == maxKeys {
			return nil, fmt.Errorf("%w: line %d: %s with more than %d keys, the most fanseal reads", ErrInvalidKey, n, file, maxKeys)
		}
		k, err := parse(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		out = append(out, k)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: reading %s: %v", ErrInvalidKey, file, err)
	}
	if cr.n > maxKeyFileSize {
		return nil, tooLarge()
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no %s found", ErrInvalidKey, what)
	}
	return out, nil
}
