package dict_test

import (
	"fmt"
	"strconv"

	"github.com/zlite/zlite/dict"
)

func Example() {
	var h dict.Map // the zero value is an empty map
	h.Set("name", "Ada")
	h.Set("lang", "en")
	h.Set("name", "Ada Lovelace") // an update keeps the field's place
	v, ok := h.Get("name")
	fmt.Println(v, ok, h.Len())
	for f, v := range h.All() {
		fmt.Printf("%s=%s\n", f, v)
	}
	// Output:
	// Ada Lovelace true 2
	// name=Ada Lovelace
	// lang=en
}

func ExampleMap_Encoding() {
	h := dict.New()
	for i := range 128 {
		h.Set("field:"+strconv.Itoa(i), "v")
	}
	fmt.Println(h.Len(), h.Encoding())
	h.Set("one more", "v")
	fmt.Println(h.Len(), h.Encoding())
	for i := range 129 {
		h.Delete("field:" + strconv.Itoa(i))
	}
	fmt.Println(h.Len(), h.Encoding()) // a table stays a table while it has fields
	h.Delete("one more")
	fmt.Println(h.Len(), h.Encoding())
	// Output:
	// 128 listpack
	// 129 hashtable
	// 1 hashtable
	// 0 listpack
}

func ExampleMap_Scan() {
	h := dict.New()
	for i := range 1000 {
		h.Set("f"+strconv.Itoa(i), strconv.Itoa(i))
	}
	n, calls := 0, 0
	for cursor := uint64(0); ; {
		cursor = h.Scan(cursor, 100, func(field, value string) bool {
			n++
			return true
		})
		calls++
		if cursor == 0 {
			break
		}
	}
	fmt.Println(n, "fields in", calls, "calls")
	// Output:
	// 1000 fields in 10 calls
}

func ExampleMap_ValueLen() {
	h := dict.New()
	h.Set("greeting", "hello")
	fmt.Println(h.ValueLen("greeting"))
	fmt.Println(h.ValueLen("missing"))
	// Output:
	// 5 true
	// 0 false
}
