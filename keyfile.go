package fanseal

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
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

// A KeyLine is a line of a key file that holds a key.
type KeyLine struct {
	// Number is the line's number, from 1.
	Number int
	// Text is the line without the white space at its ends.
	Text string
	// Comments are the comment lines directly above it, without their #
	// and white space; a blank line ends them. At most the last 4 are
	// kept, each cut to 256 bytes, so that a file of comments takes
	// bounded memory.
	Comments []string
}

const (
	maxComments   = 4
	maxCommentLen = 256
)

// ErrKeyFileTooLarge is what KeyLines yields for a file larger than
// MaxKeyFileSize; it matches ErrInvalidKey.
var ErrKeyFileTooLarge = fmt.Errorf("%w: key file larger than %d bytes (64 MiB), the most fanseal reads", ErrInvalidKey, maxKeyFileSize)

// ErrKeyLineTooLong is what KeyLines yields for a line longer than 64
// KiB; it matches ErrInvalidKey.
var ErrKeyLineTooLong = fmt.Errorf("%w: a line of the key file is longer than %d bytes", ErrInvalidKey, maxKeyLine)

// KeyLines reads a key file and yields each line that holds a key: the
// lines left once white space (Unicode's) is trimmed from both ends of
// each line, those left empty and those that start with # skipped. It
// stops with an error for a file over MaxKeyFileSize (ErrKeyFileTooLarge),
// before yielding any line of it (the count is checked before every
// line, one byte past the limit telling a file over it from one that ends
// at it), for a line over 64 KiB (ErrKeyLineTooLong), or for a read error.
// It holds one line at a time, in a buffer of at most 64 KiB. It is the
// one scanner of key files: ParseIdentities, ParseRecipients and
// fanseal's command line read through it.
func KeyLines(r io.Reader) iter.Seq2[KeyLine, error] {
	return func(yield func(KeyLine, error) bool) {
		cr := &countingReader{r: io.LimitReader(r, maxKeyFileSize+1)}
		sc := bufio.NewScanner(cr)
		sc.Buffer(make([]byte, 0, 4096), maxKeyLine)
		var comments []string
		for n := 1; sc.Scan(); n++ {
			if cr.n > maxKeyFileSize {
				yield(KeyLine{}, ErrKeyFileTooLarge)
				return
			}
			line := strings.TrimSpace(sc.Text())
			switch {
			case line == "":
				comments = nil
				continue
			case strings.HasPrefix(line, "#"):
				c := strings.TrimSpace(strings.TrimLeft(line, "#"))
				if len(c) > maxCommentLen {
					c = strings.ToValidUTF8(c[:maxCommentLen], "")
				}
				if len(comments) == maxComments {
					comments = append(comments[:0], comments[1:]...)
				}
				comments = append(comments, c)
				continue
			}
			if !yield(KeyLine{Number: n, Text: line, Comments: slices.Clone(comments)}, nil) {
				return
			}
			comments = nil
		}
		switch err := sc.Err(); {
		case errors.Is(err, bufio.ErrTooLong):
			yield(KeyLine{}, ErrKeyLineTooLong)
		case err != nil:
			yield(KeyLine{}, err)
		case cr.n > maxKeyFileSize:
			yield(KeyLine{}, ErrKeyFileTooLarge)
		}
	}
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
	var out []T
	for line, err := range KeyLines(r) {
		switch {
		case errors.Is(err, ErrKeyFileTooLarge):
			return nil, fmt.Errorf("%w: %s larger than %d bytes (64 MiB), the most fanseal reads", ErrInvalidKey, file, maxKeyFileSize)
		case err != nil:
			return nil, fmt.Errorf("%w: reading %s: %v", ErrInvalidKey, file, err)
		}
		if maxKeys > 0 && len(out) == maxKeys {
			return nil, fmt.Errorf("%w: line %d: %s with more than %d keys, the most fanseal reads", ErrInvalidKey, line.Number, file, maxKeys)
		}
		k, err := parse(line.Text)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line.Number, err)
		}
		out = append(out, k)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no %s found", ErrInvalidKey, what)
	}
	return out, nil
}
