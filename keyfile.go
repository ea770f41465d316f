package fanseal

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// maxKeyFileSize bounds what ParseIdentities and ParseRecipients read.
const maxKeyFileSize = 16 << 20

// ParseIdentities reads an identity file: one identity per line, with
// blank lines and lines starting with # ignored. Errors name the line.
func ParseIdentities(r io.Reader) ([]*Identity, error) {
	return parseLines(r, "identity", ParseIdentity)
}

// ParseRecipients reads a recipients file: one recipient per line, with
// blank lines and lines starting with # ignored. Errors name the line.
func ParseRecipients(r io.Reader) ([]*Recipient, error) {
	return parseLines(r, "recipient", ParseRecipient)
}

func parseLines[T any](r io.Reader, what string, parse func(string) (T, error)) ([]T, error) {
	sc := bufio.NewScanner(io.LimitReader(r, maxKeyFileSize))
	sc.Buffer(make([]byte, 0, 4096), 64<<10)
	var out []T
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, err := parse(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		out = append(out, k)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: reading %s file: %v", ErrInvalidKey, what, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no %s found", ErrInvalidKey, what)
	}
	return out, nil
}
