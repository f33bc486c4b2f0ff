package browser

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
)

// Ink describes a screenshot: its size and how much of it is drawn in colour (charts' lines, bars
// and bands) rather than in black, white or grey (text, rules, background).
type Ink struct {
	Width, Height int
	// Coloured is the fraction of pixels whose channels differ by more than 48 of 255.
	Coloured float64
}

// Measure decodes a PNG screenshot and measures its ink.
func Measure(shot []byte) (Ink, error) {
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		return Ink{}, fmt.Errorf("the screenshot is not a PNG: %w", err)
	}
	return measure(img), nil
}

func measure(img image.Image) Ink {
	b := img.Bounds()
	in := Ink{Width: b.Dx(), Height: b.Dy()}
	if in.Width == 0 || in.Height == 0 {
		return in
	}
	coloured := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			hi := max(r, g, bl) >> 8
			lo := min(r, g, bl) >> 8
			if hi-lo > 48 {
				coloured++
			}
		}
	}
	in.Coloured = float64(coloured) / float64(in.Width*in.Height)
	return in
}
