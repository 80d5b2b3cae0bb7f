// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${name} in plain strings is the syntax under test

/**
 * A file of two environments, staging and production, each at its own service (replace
 * STAGING_URL and PROD_URL) with its credentials prefix and values: alice_wx's welcome card takes
 * each environment's appid and cover; qa_bot_wx exists only in staging.
 */
export const TWO_ENVIRONMENTS = `version: 1
environments:
  staging:
    base_url: STAGING_URL
    credentials: STAGING
    values:
      shop_app: wx1111111111111111
      cover: STAGING_COVER
  production:
    base_url: PROD_URL
    credentials: PROD
    values:
      shop_app: wx2222222222222222
      cover: PROD_COVER
guides:
  - account: alice_wx
    nickname: Alice
    head_image_url: https://mmbiz.qpic.cn/mmbiz_jpg/alice/0
    welcome:
      - miniprogram:
          appid: \${shop_app}
          title: New arrivals
          path: pages/new/index
          media_id: \${cover}
  - account: qa_bot_wx
    only_in: [staging]
    nickname: QA
    head_image_url: https://mmbiz.qpic.cn/mmbiz_jpg/qa/0
`;

/** `file` (such as TWO_ENVIRONMENTS) with staging's and production's base URLs put in. */
export function atUrls(file: string, stagingUrl: string, productionUrl: string): string {
  return file.replace('STAGING_URL', stagingUrl).replace('PROD_URL', productionUrl);
}
