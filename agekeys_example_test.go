package fanseal_test

import (
	"fmt"

	"github.com/fanseal/fanseal"
)

// An age recipient, as age-keygen prints it, is a fanseal x25519
// recipient in another spelling.
func ExampleRecipient_AgeString() {
	r, err := fanseal.ParseRecipient("age1557sk3gc9kyn2h65da58aet4rzak3rl884tachcs95plzffmm5tsr4c7yx")
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Suite())
	fmt.Println(r) // fanseal's spelling
	age, _ := r.AgeString()
	fmt.Println(age)
	// Output:
	// x25519
	// fanseal_x25519_uu6qwriyfwetkx2un5uh5zlvdc5wrd7hhvl5yxyqfub7cjj33ul6iypti4
	// age1557sk3gc9kyn2h65da58aet4rzak3rl884tachcs95plzffmm5tsr4c7yx
}
