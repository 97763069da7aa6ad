// The Playground (issue 33): at 1280×800 the chat's message box and Send are on the first screen; the Embeddings
// tab embeds one vector per line; the Video tab makes a video job, follows it until it is done and plays it.
import { expectEqual, expectText, expectVisible } from '../expect.mjs';
import { signInThrough } from '../flows.mjs';
import { newAccount, noHorizontalScroll, screenshot } from '../devices.mjs';

export const name = 'playground tabs';

export const tests = [
  {
    name: 'the message box is above the fold at 1280×800; embeddings and a video through their tabs',
    async run({ newPage, baseUrl }) {
      const account = await newAccount(baseUrl, 'tabs');
      const page = await newPage({ viewport: { width: 1280, height: 800 } });
      await signInThrough(page, account, '/playground');
      const message = page.getByRole('textbox', { name: 'Message' });
      await expectVisible(message);
      for (const [what, locator] of [
        ['the message box', message],
        ['the Send button', page.getByRole('button', { name: 'Send' })],
      ]) {
        const box = await locator.boundingBox();
        expectEqual(
          box !== null && box.y + box.height <= 800,
          true,
          `${what} within the first 800 px (${JSON.stringify(box)})`,
        );
      }
      await screenshot(page, 'playground-fold-desktop.png');

      await page.getByRole('tab', { name: 'Embeddings' }).click();
      const embed = page.getByRole('form', { name: 'Make embeddings' });
      await embed.getByLabel('Texts, one per line').fill('first line\n\nsecond line');
      await embed.getByRole('button', { name: 'Embed' }).click();
      await expectText(embed, '2 vectors of');
      await expectText(embed, 'tokens ·');
      await expectText(page.getByRole('tabpanel').last(), '/v1/embeddings');

      await page.getByRole('tab', { name: 'Video' }).click();
      const video = page.getByRole('form', { name: 'Make a video' });
      await video.getByLabel('Prompt').fill('A paper boat in the rain');
      await video.getByRole('button', { name: 'Make the video' }).click();
      await expectText(video, 'Job video_');
      await expectText(video, 'done.', { timeout: 30_000 });
      await expectVisible(video.locator('video'));
      const src = await video.locator('video').getAttribute('src');
      expectEqual(src?.startsWith('blob:'), true, 'the video played from the downloaded bytes');
      await noHorizontalScroll(page, 'the Video tab at 1280 px');
    },
  },
];
