// Package errs holds fanseal's error sentinels, so that the internal
// packages and the public ones return the same values that errors.Is
// matches. The root package re-exports each of them.
package errs

import "errors"

var (
	NotRecipient       = errors.New("no identity matches any recipient of the envelope")
	Malformed          = errors.New("malformed envelope")
	Authentication     = errors.New("envelope failed authentication")
	Truncated          = errors.New("truncated envelope")
	Unsupported        = errors.New("unsupported envelope version, suite or stanza")
	InvalidKey         = errors.New("invalid key")
	DuplicateRecipient = errors.New("duplicate recipient")
	MixedSuites        = errors.New("post-quantum and classical recipients cannot share an envelope")
	RecipientCount     = errors.New("recipient count out of range")
	// AnonymousLimit matches Unsupported too: it is the one limit of a
	// reader that its caller may raise.
	AnonymousLimit error = anonymousLimit{}
)

type anonymousLimit struct{}

func (anonymousLimit) Error() string {
	return "anonymous envelope needs more trial decryptions than allowed"
}

// Is makes AnonymousLimit match Unsupported.
func (anonymousLimit) Is(target error) bool { return target == Unsupported }
