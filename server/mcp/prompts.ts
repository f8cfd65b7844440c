import type {GetPromptResult, McpServer} from '@modelcontextprotocol/server'
import {z} from 'zod'
import {slugSchema} from '../../catalog/v1/contract.ts'

// Prompts an agent's user picks from a menu: Hebrew, since the catalog is, and each names the
// tools that answer it, so the model calls them instead of answering from memory.

export interface PromptDefinition {
  name: string
  title: string
  description: string
  register(server: McpServer): void
}

const userText = (text: string): GetPromptResult => ({
  messages: [{role: 'user', content: {type: 'text', text}}],
})

const summariseEpisode: PromptDefinition = {
  name: 'summarise_episode',
  title: 'סיכום פרק',
  description: 'סיכום בעברית של פרק אחד: על מה דיברו, מי דיבר, ופרקי הזמן שלו.',
  register(server) {
    const argsSchema = z.object({slug: slugSchema.describe('ה-slug של הפרק, למשל ep-22-cache-invalidation')})
    server.registerPrompt(this.name, {title: this.title, description: this.description, argsSchema}, ({slug}) =>
      userText(
        [
          `סכם בעברית את הפרק ${slug}.`,
          `קרא אותו עם הכלי get_episode (slug: "${slug}"); אם אין פרק כזה, הכלי מציע slugs קרובים, ואפשר לחפש עם search_catalog.`,
          'לכל אחד מהאורחים (guests) קרא את הפרופיל עם get_voice, ואמור במשפט מי הוא.',
          'כתוב שלוש עד חמש שורות על מה שנאמר, לפי התיאור, הנקודות העיקריות (takeaways), התגיות והפרקים (chapters) עם הזמנים שלהם, אם יש.',
          'אל תוסיף מידע שאינו בתשובות הכלים, וסיים בקישור ה-url של הפרק (לא ה-api_url).',
        ].join('\n'),
      ),
    )
  },
}

const whoSpokeAbout: PromptDefinition = {
  name: 'who_spoke_about',
  title: 'מי דיבר על',
  description: 'מי מהדוברים דיבר על נושא, באיזה פרק או מפגש, עם קישורים.',
  register(server) {
    const argsSchema = z.object({topic: z.string().min(1).max(200).describe('הנושא, בעברית או באנגלית, למשל "ריאקט"')})
    server.registerPrompt(this.name, {title: this.title, description: this.description, argsSchema}, ({topic}) =>
      userText(
        [
          `מי דיבר על "${topic}"?`,
          `חפש עם הכלי search_catalog (query: "${topic}"); אם הנושא הוא תגית, אפשר גם list_tags ואחריו list_episodes ו-list_meetups עם tag.`,
          'לכל פרק או מפגש שנמצא, קרא אותו עם get_episode או get_meetup כדי לדעת מי דיבר בו (guests בפרק, speakers במפגש), ולכל דובר קרא את get_voice.',
          'ענה ברשימה לפי דובר: השם, במשפט מה אמר או הציג לפי התיאור, ואיפה (כותרת וקישור url).',
          'אם לא נמצא דבר, אמור זאת, ואל תמציא דוברים.',
        ].join('\n'),
      ),
    )
  },
}

const whatIsNew: PromptDefinition = {
  name: 'whats_new',
  title: 'מה חדש',
  description: 'הפרקים והמפגשים האחרונים בקטלוג, בקצרה.',
  register(server) {
    server.registerPrompt(this.name, {title: this.title, description: this.description}, () =>
      userText(
        [
          'מה חדש בפודקאסט?',
          'קרא את חמשת הפרקים האחרונים עם list_episodes (limit: 5) ואת שלושת המפגשים האחרונים עם list_meetups (limit: 3); הרשימות ממוינות מהחדש לישן.',
          'לכל אחד כתוב שורה: התאריך, הכותרת, על מה הוא לפי התגיות, וקישור url.',
        ].join('\n'),
      ),
    )
  },
}

export const catalogPrompts: readonly PromptDefinition[] = [summariseEpisode, whoSpokeAbout, whatIsNew]
