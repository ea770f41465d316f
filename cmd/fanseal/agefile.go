package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// errAgeFile is what decrypt and inspect say of an age envelope.
var errAgeFile = errors.New("this is an age file; decrypt it with age (fanseal reads age's keys, not its envelopes)")

// ageStarts are the ways an age envelope begins: its binary header and
// its armor.
var ageStarts = [][]byte{[]byte("age-encryption.org/"), []byte("-----BEGIN AGE ENCRYPTED FILE-----")}

// refuseAgeFile returns a reader of r, or errAgeFile if r holds an age
// envelope, binary or armored (leading whitespace allowed, as age's armor
// reader allows it).
func refuseAgeFile(r io.Reader) (*bufio.Reader, error) {
	br := bufio.NewReader(r)
	start, _ := br.Peek(256)
	start = bytes.TrimLeft(start, " \t\r\n")
	for _, s := range ageStarts {
		if bytes.HasPrefix(start, s) {
			return nil, errAgeFile
		}
	}
	return br, nil
}
