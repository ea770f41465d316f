package ledger_test

import (
	"fmt"
	"log"

	"github.com/fanseal/fanseal/ledger"
)

// Encrypt a transaction's private write set, rekey, and read it back.
func Example() {
	secrets, err := ledger.NewSecrets(1, nil) // a random initial ledger secret from seqno 1
	if err != nil {
		log.Fatal(err)
	}
	enc := ledger.NewEncryptor(secrets)

	txid := ledger.TxID{View: 2, Seqno: 42}
	entry, err := enc.Encrypt(nil, []byte(`{"balance": 100}`), []byte("public part"), txid, ledger.WriteSet)
	if err != nil {
		log.Fatal(err)
	}

	// A later rekey does not affect historical reads.
	if err := secrets.Rekey(1000, nil); err != nil {
		log.Fatal(err)
	}
	plain, err := enc.Decrypt(nil, entry, []byte("public part"), txid, ledger.WriteSet)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s (%d-byte header)\n", plain, ledger.HeaderSize)
	// Output: {"balance": 100} (28-byte header)
}
