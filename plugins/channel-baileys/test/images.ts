import sharp from 'sharp';

const frame = (r: number, g: number, b: number, width = 40, height = 30) =>
  sharp({ create: { width, height, channels: 4, background: { r, g, b, alpha: 1 } } });

/** Real images made by sharp: one PNG, JPEG and static GIF, and a three-frame animated GIF. */
export async function sampleImages(): Promise<{ png: Buffer; jpeg: Buffer; gif: Buffer; animatedGif: Buffer }> {
  const frames = await Promise.all([frame(255, 0, 0).png().toBuffer(), frame(0, 255, 0).png().toBuffer(), frame(0, 0, 255).png().toBuffer()]);
  return {
    png: await frame(255, 0, 0).png().toBuffer(),
    jpeg: await frame(0, 128, 255).jpeg().toBuffer(),
    gif: await frame(0, 255, 0).gif().toBuffer(),
    animatedGif: await sharp(frames, { join: { animated: true } }).gif({ delay: 100, loop: 0 }).toBuffer(),
  };
}
