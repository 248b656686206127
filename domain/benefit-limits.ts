/** Polar's limits on benefit settings: plain constants, so browser forms check the same. */

/** Limits Polar puts on license key settings. */
export const licenseKeyLimits = { maximumActivations: 50 } as const;

/** Benefit descriptions are 3 to 42 characters, as in Polar. */
export const descriptionLength = { minimum: 3, maximum: 42 } as const;
