// Apple Podcasts' category list (podcasters.apple.com, "Apple Podcasts categories"), as the
// `text` attributes of `itunes:category`. A category outside it is ignored by Apple, so both the
// Studio and the server's settings schema accept only these.
export const APPLE_CATEGORIES: Readonly<Record<string, readonly string[]>> = {
  Arts: ['Books', 'Design', 'Fashion & Beauty', 'Food', 'Performing Arts', 'Visual Arts'],
  Business: ['Careers', 'Entrepreneurship', 'Investing', 'Management', 'Marketing', 'Non-Profit'],
  Comedy: ['Comedy Interviews', 'Improv', 'Stand-Up'],
  Education: ['Courses', 'How To', 'Language Learning', 'Self-Improvement'],
  Fiction: ['Comedy Fiction', 'Drama', 'Science Fiction'],
  Government: [],
  History: [],
  'Health & Fitness': ['Alternative Health', 'Fitness', 'Medicine', 'Mental Health', 'Nutrition', 'Sexuality'],
  'Kids & Family': ['Education for Kids', 'Parenting', 'Pets & Animals', 'Stories for Kids'],
  Leisure: [
    'Animation & Manga',
    'Automotive',
    'Aviation',
    'Crafts',
    'Games',
    'Hobbies',
    'Home & Garden',
    'Video Games',
  ],
  Music: ['Music Commentary', 'Music History', 'Music Interviews'],
  News: [
    'Business News',
    'Daily News',
    'Entertainment News',
    'News Commentary',
    'Politics',
    'Sports News',
    'Tech News',
  ],
  'Religion & Spirituality': ['Buddhism', 'Christianity', 'Hinduism', 'Islam', 'Judaism', 'Religion', 'Spirituality'],
  Science: [
    'Astronomy',
    'Chemistry',
    'Earth Sciences',
    'Life Sciences',
    'Mathematics',
    'Natural Sciences',
    'Nature',
    'Physics',
    'Social Sciences',
  ],
  'Society & Culture': ['Documentary', 'Personal Journals', 'Philosophy', 'Places & Travel', 'Relationships'],
  Sports: [
    'Baseball',
    'Basketball',
    'Cricket',
    'Fantasy Sports',
    'Football',
    'Golf',
    'Hockey',
    'Rugby',
    'Running',
    'Soccer',
    'Swimming',
    'Tennis',
    'Volleyball',
    'Wilderness',
    'Wrestling',
  ],
  Technology: [],
  'True Crime': [],
  'TV & Film': ['After Shows', 'Film History', 'Film Interviews', 'Film Reviews', 'TV Reviews'],
}

/** `Technology` or `Business › Careers`: a category with its subcategory, as editors pick one. */
export interface AppleCategory {
  category: string
  subcategory: string | null
}

export function isAppleCategory({category, subcategory}: AppleCategory): boolean {
  const subcategories = Object.hasOwn(APPLE_CATEGORIES, category) ? APPLE_CATEGORIES[category] : undefined
  return subcategories !== undefined && (subcategory === null || subcategories.includes(subcategory))
}

/** Every choice, `Category` and `Category|Subcategory`, for a Studio list. */
export const APPLE_CATEGORY_CHOICES: readonly {title: string; value: string}[] = Object.entries(
  APPLE_CATEGORIES,
).flatMap(([category, subcategories]) => [
  {title: category, value: category},
  ...subcategories.map((subcategory) => ({title: `${category} › ${subcategory}`, value: `${category}|${subcategory}`})),
])

export function parseCategoryChoice(value: string): AppleCategory {
  const [category = '', subcategory] = value.split('|')
  return {category, subcategory: subcategory ?? null}
}
