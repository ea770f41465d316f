package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"filippo.io/age"
)

// -j batchpass: age's batchpass plugin (age-plugin-batchpass), built in, so
// that scripts which seal and open age files with a passphrase from the
// environment work with fanseal alone. It reads what the plugin reads:
// the passphrase from AGE_PASSPHRASE, or from the file descriptor
// AGE_PASSPHRASE_FD; the work factor of a new file from
// AGE_PASSPHRASE_WORK_FACTOR (log2 N, 1 to 30, 18 by default); and the
// largest work factor a file may ask of a reader from
// AGE_PASSPHRASE_MAX_WORK_FACTOR (1 to 30, 22 by default). Its files are
// age's passphrase files, which age -d and fanseal decrypt open with the
// passphrase typed in.

// batchpassName is the plugin name that selects the built-in.
const batchpassName = "batchpass"

// maxBatchpassLength is the most read from AGE_PASSPHRASE_FD, as the
// plugin reads.
const maxBatchpassLength = 1 << 20

// batchpassPassphrase returns the passphrase of the environment.
func batchpassPassphrase() (string, error) {
	pass, fd := os.Getenv("AGE_PASSPHRASE"), os.Getenv("AGE_PASSPHRASE_FD")
	switch {
	case pass != "" && fd != "":
		return "", errors.New("-j batchpass: AGE_PASSPHRASE and AGE_PASSPHRASE_FD are mutually exclusive; unset one")
	case pass == "" && fd == "":
		return "", errors.New("-j batchpass: either AGE_PASSPHRASE or AGE_PASSPHRASE_FD must be set, to the passphrase or to a file descriptor it can be read from")
	case pass != "":
		return pass, nil
	}
	n, err := strconv.Atoi(fd)
	if err != nil || n < 0 {
		return "", fmt.Errorf("-j batchpass: invalid AGE_PASSPHRASE_FD %q: want a file descriptor number", fd)
	}
	f := os.NewFile(uintptr(n), "AGE_PASSPHRASE_FD")
	if f == nil {
		return "", fmt.Errorf("-j batchpass: AGE_PASSPHRASE_FD %d is not an open file descriptor", n)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxBatchpassLength+1))
	if err != nil {
		return "", fmt.Errorf("-j batchpass: reading the passphrase from file descriptor %d: %v", n, err)
	}
	if len(b) > maxBatchpassLength {
		return "", fmt.Errorf("-j batchpass: the passphrase from file descriptor %d is longer than %d bytes", n, maxBatchpassLength)
	}
	return strings.TrimRight(string(b), "\r\n"), nil
}

// batchpassWorkFactor reads the work factor variable name, or returns def.
func batchpassWorkFactor(name string, def int) (int, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 30 {
		return 0, fmt.Errorf("-j batchpass: %s must be a work factor between 1 and 30, not %q", name, v)
	}
	return n, nil
}

// batchpassRecipient returns the passphrase recipient of -j batchpass.
func batchpassRecipient() (age.Recipient, error) {
	pass, err := batchpassPassphrase()
	if err != nil {
		return nil, err
	}
	wf, err := batchpassWorkFactor("AGE_PASSPHRASE_WORK_FACTOR", 18)
	if err != nil {
		return nil, err
	}
	r, err := age.NewScryptRecipient(pass)
	if err != nil {
		return nil, fmt.Errorf("-j batchpass: %v", err)
	}
	r.SetWorkFactor(wf)
	return r, nil
}

// batchpassIdentity returns the passphrase identity of -j batchpass.
func batchpassIdentity() (age.Identity, error) {
	pass, err := batchpassPassphrase()
	if err != nil {
		return nil, err
	}
	wf, err := batchpassWorkFactor("AGE_PASSPHRASE_MAX_WORK_FACTOR", ageMaxScryptWorkFactor)
	if err != nil {
		return nil, err
	}
	id, err := age.NewScryptIdentity(pass)
	if err != nil {
		return nil, fmt.Errorf("-j batchpass: %v", err)
	}
	id.SetMaxWorkFactor(wf)
	return batchpassIdentityOf{id}, nil
}

// batchpassIdentityOf opens a file sealed to the passphrase, and says so
// of any other, as the plugin does.
type batchpassIdentityOf struct{ id *age.ScryptIdentity }

func (b batchpassIdentityOf) Unwrap(stanzas []*age.Stanza) ([]byte, error) {
	for _, s := range stanzas {
		if s.Type == "scrypt" && len(stanzas) != 1 {
			return nil, errors.New("-j batchpass: a passphrase (scrypt) stanza must be alone in its file")
		}
	}
	if len(stanzas) != 1 || stanzas[0].Type != "scrypt" {
		return nil, errors.New("-j batchpass: the file is not passphrase-encrypted")
	}
	key, err := b.id.Unwrap(stanzas)
	if errors.Is(err, age.ErrIncorrectIdentity) {
		return nil, errors.New("-j batchpass: incorrect passphrase")
	}
	return key, err
}
