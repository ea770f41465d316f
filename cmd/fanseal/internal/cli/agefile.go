package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"filippo.io/age/armor"
	"github.com/fanseal/fanseal"
)

// errEmptyInput is what decrypt and inspect say of an input with no bytes
// at all: there is no envelope, of fanseal or of age, to read. It is a
// truncated envelope (docs/FORMAT.md).
var errEmptyInput = fmt.Errorf("%w: the input is empty (0 bytes): there is no envelope to read", fanseal.ErrTruncated)

// ageIntro is the first line of a binary age v1 file.
const ageIntro = "age-encryption.org/"

// ageArmorName is what age's armor header says, in upper case.
const ageArmorName = "AGE ENCRYPTED"

// ageMaxWhitespace is how much white space age's command line skips
// before its armor header; fanseal looks as far.
const ageMaxWhitespace = 1024

// sniffInput returns a reader of r that replays what it looked at, and
// whether r holds an age file, binary or armored (after leading white
// space, as age's armor reader allows it). An empty input is
// errEmptyInput.
func sniffInput(r io.Reader) (br *bufio.Reader, isAge bool, err error) {
	br = bufio.NewReaderSize(r, 2*ageMaxWhitespace+len(armor.Header))
	start, err := br.Peek(ageMaxWhitespace + len(armor.Header))
	if len(start) == 0 {
		if err == nil || errors.Is(err, io.EOF) {
			return nil, false, errEmptyInput
		}
		return nil, false, err
	}
	trimmed := bytes.TrimLeft(start, " \t\r\n")
	isAge = bytes.HasPrefix(trimmed, []byte(ageIntro)) || bytes.HasPrefix(trimmed, []byte(armor.Header)) ||
		// A damaged armor (cased otherwise, or after other text) is still
		// an age file, for age's reader to refuse in its own words.
		bytes.Contains(bytes.ToUpper(start), []byte(ageArmorName))
	return br, isAge, nil
}

// ageArmored reports whether the start of br is age's armor, as age's
// command line decides it: its header after at most ageMaxWhitespace
// bytes of white space.
func ageArmored(br *bufio.Reader) bool {
	start, _ := br.Peek(ageMaxWhitespace + len(armor.Header))
	return bytes.HasPrefix(bytes.TrimSpace(start), []byte(armor.Header))
}
