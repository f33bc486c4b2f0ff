// reportpng renders an HTML report in headless Chromium (internal/browser, as hack/reportcheck
// does) and writes the top of the page as a PNG: the picture of a report that README shows.
// It fails when the page has a problem reportcheck would name.
//
// usage: go run ./hack/reportpng [-height PIXELS] FILE.html OUT.png
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"

	"github.com/tpcc-operator/tpcc-operator/internal/browser"
)

func main() {
	height := flag.Int("height", 1100, "the pixels from the top of the page to keep")
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: reportpng [-height PIXELS] FILE.html OUT.png")
		os.Exit(2)
	}
	if err := render(flag.Arg(0), flag.Arg(1), *height); err != nil {
		fmt.Fprintf(os.Stderr, "reportpng: %v\n", err)
		os.Exit(1)
	}
}

func render(file, out string, height int) error {
	p, err := browser.Open(context.Background(), file)
	if err != nil {
		return err
	}
	if problems := append(p.Problems(), p.ChartProblems()...); len(problems) > 0 {
		return fmt.Errorf("%s: %v", file, problems)
	}
	img, err := png.Decode(bytes.NewReader(p.Screenshot))
	if err != nil {
		return fmt.Errorf("the screenshot is not a PNG: %w", err)
	}
	b := img.Bounds()
	if b.Dy() > height {
		b.Max.Y = b.Min.Y + height
	}
	top := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(top, top.Bounds(), img, b.Min, draw.Src)
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&buf, top); err != nil {
		return err
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Printf("%s: %q, top %d×%d of the page in %s (%d KB)\n", file, p.Title, b.Dx(), b.Dy(), out, buf.Len()/1024)
	return nil
}
